import { api } from "../api.js";
import { formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, formPanel, link, pagedTable, select } from "../ui.js";

/** Trading partners (each opens its page), and a form to add one. */
export function partnersPage() {
  const list = h("div");
  const show = () =>
    render(
      list,
      pagedTable({
        caption: "Partners",
        load: (cursor) => api.get("/admin/partners", { cursor }),
        columns: [
          { label: "Name", cell: (p) => link(`#/partners/${p.id}`, p.name) },
          { label: "Id", cell: (p) => h("code", {}, p.id) },
          { label: "Created", cell: (p) => formatTime(p.createdAt) },
        ],
      }),
    );
  show();
  return h(
    "div",
    {},
    h("h1", {}, "Partners"),
    can("admin.partners", "create")
      ? formPanel(
          "New partner",
          field("Name", { name: "name", required: true, maxlength: 200 }),
          "Add partner",
          async (data, form) => {
            await api.post("/admin/partners", { name: String(data.get("name")) });
            form.reset();
            show();
          },
        )
      : null,
    list,
  );
}

/**
 * A "Partner" select filled with the tenant's partners (the first hundred: a console for many
 * hundreds would search); a failure to load them shows in `slot`.
 */
export function partnerSelect(slot) {
  const control = select("Partner", "partner", [], { required: true });
  void attempt(slot, async () => {
    const page = await api.get("/admin/partners", { limit: 100 });
    control.querySelector("select").append(...page.items.map((p) => h("option", { value: p.id }, p.name)));
  });
  return control;
}
