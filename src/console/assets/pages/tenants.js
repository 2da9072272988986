import { api, newIdempotencyKey } from "../api.js";
import { badge, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, formPanel, pagedTable, statusSlot } from "../ui.js";

/** Customer tenants (system tenant only): the list, and creating one with its provisioning progress. */
export function tenantsPage() {
  const list = h("div");
  const progress = h("div", { "aria-live": "polite" });
  const slot = statusSlot();
  const change = (tenant, act) =>
    attempt(slot, async () => {
      if (!confirm(questions[act](tenant))) return;
      await api.post(`/system/tenants/${encodeURIComponent(tenant.id)}/${act}`);
      render(
        slot,
        h("p", { role: "status" }, `Tenant ${tenant.slug} ${act === "suspend" ? "suspended" : "resumed"}.`),
      );
      show();
    });
  /** Suspend (an active customer tenant) or resume (a suspended one), where the credential may. */
  const actions = (t) => {
    const act =
      t.status === "active" && t.type === "customer" ? "suspend" : t.status === "suspended" ? "resume" : null;
    if (!act || !can("system.tenants", act)) return "—";
    return h(
      "button",
      { type: "button", class: "secondary", onclick: () => void change(t, act) },
      act === "suspend" ? "Suspend" : "Resume",
      h("span", { class: "visually-hidden" }, ` ${t.slug}`),
    );
  };
  const mayChange = can("system.tenants", "suspend") || can("system.tenants", "resume");
  const show = () =>
    render(
      list,
      pagedTable({
        caption: "Tenants",
        load: (cursor) => api.get("/system/tenants", { cursor }),
        columns: [
          { label: "Name", cell: (t) => t.name },
          { label: "Slug", cell: (t) => h("code", {}, t.slug) },
          { label: "Type", cell: (t) => t.type },
          { label: "Status", cell: (t) => badge(t.status) },
          { label: "Created", cell: (t) => formatTime(t.createdAt) },
          ...(mayChange ? [{ label: "Actions", cell: actions }] : []),
        ],
      }),
    );
  show();
  return h(
    "div",
    {},
    h("h1", {}, "Tenants"),
    slot,
    can("system.tenants", "create")
      ? formPanel(
          "New customer tenant",
          [
            field("Name", { name: "name", required: true, maxlength: 200 }),
            field("Slug", {
              name: "slug",
              required: true,
              pattern: "[a-z0-9]([a-z0-9-]*[a-z0-9])?",
              minlength: 2,
              maxlength: 63,
            }),
            field("Administrator e-mail", { name: "email", type: "email", required: true }),
            field("Administrator password", {
              name: "password",
              type: "password",
              required: true,
              minlength: 15,
              maxlength: 1024,
              autocomplete: "new-password",
            }),
          ],
          "Create tenant",
          async (data, form) => {
            const created = await api.post(
              "/system/tenants",
              {
                name: String(data.get("name")),
                slug: String(data.get("slug")),
                admin: { email: String(data.get("email")), password: String(data.get("password")) },
              },
              { "idempotency-key": newIdempotencyKey() },
            );
            form.reset();
            void follow(progress, created.tenantId, show);
          },
        )
      : null,
    progress,
    list,
  );
}

/** The confirmations of suspend and resume: what stops working, and what comes back. */
const questions = {
  suspend: (t) =>
    `Suspend the tenant ${t.name} (${t.slug})? Every session, access token, partner API key and service credential of the tenant is refused at once, as if unknown; its exchange deliveries and webhooks wait. Nothing is deleted: resuming brings everything back.`,
  resume: (t) =>
    `Resume the tenant ${t.name} (${t.slug})? Its sessions, access tokens, partner API keys and service credentials work again, and its waiting deliveries and webhooks run.`,
};

/** Polls the provisioning status once a second until it is final, showing each step. */
async function follow(target, tenantId, done) {
  const slot = statusSlot();
  for (;;) {
    const status = await attempt(slot, () =>
      api.get(`/system/tenants/${encodeURIComponent(tenantId)}/provisioning`),
    );
    if (!status) return render(target, slot);
    render(
      target,
      h(
        "section",
        { class: "panel", "aria-label": "Provisioning" },
        h("h2", {}, "Provisioning ", badge(status.state)),
        h(
          "ol",
          { class: "steps" },
          status.steps.map((s) => h("li", {}, `${s.name} `, badge(s.state))),
        ),
        status.error
          ? h("div", { class: "alert", role: "alert" }, `${status.error.code}: ${status.error.message}`)
          : null,
        status.terminal ? h("p", {}, `Finished ${formatTime(status.completedAt)}.`) : null,
      ),
      slot,
    );
    if (status.terminal) return done();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
