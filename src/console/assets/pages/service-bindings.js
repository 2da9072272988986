import { api } from "../api.js";
import { badge, formatTime, h, render, shortId } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, formPanel, reloadableTable, select, showSecretOnce, statusSlot } from "../ui.js";
import { listOf } from "./apps.js";

/**
 * Service bindings: the credentials separately deployed services read entitlements with. A new
 * binding's secret and a rotated one are shown once and never stored by the console.
 */
export function serviceBindingsPage() {
  const slot = statusSlot();
  const issued = h("div", { "aria-live": "polite" });
  const rotate = (binding) =>
    attempt(slot, async () => {
      if (
        !confirm(
          `Rotate the credential of ${binding.appId} · ${binding.audience}? The current one stays valid for the overlap period only.`,
        )
      )
        return;
      const rotated = await api.post(`/admin/service-bindings/${encodeURIComponent(binding.id)}/rotate`);
      showSecretOnce(
        issued,
        `New credential ${rotated.credentialId} for ${binding.appId} · ${binding.audience}.`,
        `Give the service this secret now${
          rotated.previousValidUntil
            ? ` (the previous credential works until ${formatTime(rotated.previousValidUntil)})`
            : ""
        }`,
        rotated.secret,
      );
      show();
    });
  const revoke = (binding) =>
    attempt(slot, async () => {
      if (
        !confirm(
          `Revoke the service binding ${binding.appId} · ${binding.audience}? Every credential of it, the previous one of a rotation's overlap included, is refused at once, and its webhook subscriptions stop. Grants already issued stay valid until they expire (at most 15 minutes). This cannot be undone.`,
        )
      )
        return;
      await api.post(`/admin/service-bindings/${encodeURIComponent(binding.id)}/revoke`);
      render(
        issued,
        h("p", { role: "status" }, `Service binding ${binding.appId} · ${binding.audience} revoked.`),
      );
      show();
    });
  const actionButton = (label, binding, onclick) =>
    h(
      "button",
      { type: "button", class: "secondary", onclick: () => void onclick(binding) },
      label,
      h("span", { class: "visually-hidden" }, ` ${binding.appId} ${binding.audience}`),
    );
  const { element: list, reload: show } = reloadableTable({
    caption: "Service bindings",
    load: (cursor) => api.get("/admin/service-bindings", { cursor }),
    columns: [
      { label: "App", cell: (b) => b.appId },
      { label: "Audience", cell: (b) => h("code", {}, b.audience) },
      { label: "Required capabilities", cell: (b) => b.requiredCapabilities.join(", ") || "—" },
      { label: "Credential", cell: (b) => h("code", {}, b.credentialId) },
      { label: "Binding", cell: (b) => shortId(b.id) },
      { label: "Status", cell: (b) => badge(b.status) },
      { label: "Created", cell: (b) => formatTime(b.createdAt) },
      ...(can("admin.serviceBindings", "rotate") || can("admin.serviceBindings", "revoke")
        ? [
            {
              label: "Actions",
              cell: (b) =>
                b.status === "revoked"
                  ? `revoked ${formatTime(b.revokedAt)}`
                  : h(
                      "div",
                      { class: "row" },
                      can("admin.serviceBindings", "rotate") ? actionButton("Rotate", b, rotate) : null,
                      can("admin.serviceBindings", "revoke") ? actionButton("Revoke", b, revoke) : null,
                    ),
            },
          ]
        : []),
    ],
  });
  const page = h("div", {}, h("h1", {}, "Service bindings"), slot, issued);
  if (can("admin.serviceBindings", "create")) {
    const apps = select("App", "appId", [], { required: true });
    void attempt(slot, async () => {
      const page = await api.get("/admin/apps", { limit: 100 });
      apps.querySelector("select").append(...page.items.map((a) => h("option", { value: a.id }, a.id)));
    });
    page.append(
      formPanel(
        "New service binding",
        [
          apps,
          field("Audience", { name: "audience", required: true, maxlength: 255, pattern: "[\\x21-\\x7e]+" }),
          field("Required capabilities (comma-separated)", { name: "requiredCapabilities", maxlength: 2000 }),
        ],
        "Create binding",
        async (data, form) => {
          const binding = await api.post("/admin/service-bindings", {
            appId: String(data.get("appId")),
            audience: String(data.get("audience")).trim(),
            requiredCapabilities: listOf(data.get("requiredCapabilities")),
          });
          form.reset();
          showSecretOnce(
            issued,
            `Service binding for ${binding.appId} · ${binding.audience} created, credential ${binding.credentialId}.`,
            "Give the service this secret now",
            binding.secret,
          );
          show();
        },
      ),
    );
  }
  page.append(list);
  return page;
}
