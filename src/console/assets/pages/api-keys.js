import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, checkboxes, field, formPanel, pagedTable, showSecretOnce, statusSlot } from "../ui.js";
import { partnerSelect } from "./partners.js";

/** Partner API keys: issue one (its secret shown once, never stored by the console), revoke one. */
export function apiKeysPage() {
  const slot = statusSlot();
  const issued = h("div", { "aria-live": "polite" });
  const list = h("div");
  const revoke = (key) =>
    attempt(slot, async () => {
      if (!confirm(`Revoke the API key "${key.name}"? Partners using it are refused at once.`)) return;
      await api.post(`/admin/api-keys/${encodeURIComponent(key.id)}/revoke`);
      show();
    });
  const show = () =>
    render(
      list,
      pagedTable({
        caption: "API keys",
        load: (cursor) => api.get("/admin/api-keys", { cursor }),
        columns: [
          { label: "Name", cell: (k) => k.name },
          { label: "Key id", cell: (k) => h("code", {}, k.apiKeyId) },
          { label: "Partner", cell: (k) => h("code", {}, k.partnerId) },
          {
            label: "Scopes",
            cell: (k) => k.scopes.map((s) => s.replace("b2b_exchange_partner_", "")).join(", "),
          },
          { label: "Created", cell: (k) => formatTime(k.createdAt) },
          {
            label: "Revoked",
            cell: (k) =>
              k.revokedAt
                ? formatTime(k.revokedAt)
                : can("admin.apiKeys", "revoke")
                  ? h(
                      "button",
                      { type: "button", class: "danger", onclick: () => void revoke(k) },
                      `Revoke ${k.name}`,
                    )
                  : "—",
          },
        ],
      }),
    );
  show();
  const page = h("div", {}, h("h1", {}, "Partner API keys"), slot, issued);
  if (can("admin.apiKeys", "create")) {
    const partners = partnerSelect(slot);
    const scopes = checkboxes("Scopes", "scope", enumeration("partnerScopes"));
    page.append(
      formPanel(
        "Issue an API key",
        [partners, field("Name", { name: "name", maxlength: 200 }), scopes],
        "Issue key",
        async (data, form) => {
          const name = String(data.get("name") ?? "").trim();
          const key = await api.post("/admin/api-keys", {
            partnerId: String(data.get("partner")),
            scopes: data.getAll("scope").map(String),
            ...(name ? { name } : {}),
          });
          form.reset();
          showSecretOnce(
            issued,
            `API key "${key.name}" issued.`,
            "Give the partner this token now",
            key.token,
          );
          show();
        },
      ),
    );
  }
  page.append(list);
  return page;
}
