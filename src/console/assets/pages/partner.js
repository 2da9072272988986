import { api } from "../api.js";
import { badge, formatBytes, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, fieldsList, formPanel, link, pagedTable, statusSlot } from "../ui.js";
import { formatDeadline, profileSummary } from "./connections.js";

/**
 * One partner (`#/partners/<id>`): its name (renamed here), its connections, its API keys, its
 * recent uploads and its overdue deliveries, each list the server's, filtered by `partnerId` and
 * paged with its cursors.
 */
export function partnerPage(id) {
  const href = `/admin/partners/${encodeURIComponent(id)}`;
  const slot = statusSlot();
  const done = h("div", { "aria-live": "polite" });
  const details = h("div", {}, h("p", {}, "Loading…"));
  const rename = h("div");
  const lists = h("div");
  const show = () =>
    attempt(slot, async () => {
      const partner = await api.get(href);
      render(
        details,
        fieldsList([
          ["Name", partner.name],
          ["Id", h("code", {}, partner.id)],
          ["Created", formatTime(partner.createdAt)],
          ["Changed", formatTime(partner.updatedAt)],
        ]),
      );
      // The lists once the partner is known (an unknown id shows its problem, not empty lists).
      if (!lists.hasChildNodes()) render(lists, partnerLists(id));
      if (!can("admin.partners", "update")) return;
      const form = formPanel(
        "Rename",
        field("Name", { name: "name", required: true, maxlength: 200, value: partner.name }),
        "Rename partner",
        async (data) => {
          const renamed = await api.patch(href, { name: String(data.get("name")).trim() });
          render(done, h("p", { class: "notice", role: "status" }, `Renamed to "${renamed.name}".`));
          await show();
        },
      );
      render(rename, form);
    }).then(() => {
      if (details.textContent === "Loading…") render(details);
    });
  void show();
  return h(
    "div",
    {},
    h("h1", {}, "Partner"),
    h("p", {}, link("#/partners", "← All partners")),
    slot,
    done,
    details,
    rename,
    lists,
  );
}

/** A partner's overdue deliveries, connections, API keys and recent uploads (those the credential may list). */
function partnerLists(id) {
  const sections = [];
  if (can("admin.exchangeDeliveries", "list"))
    sections.push(
      h("h2", {}, "Overdue deliveries"),
      pagedTable({
        caption: "Overdue deliveries",
        empty: "No overdue deliveries: the partner collects in time.",
        load: (cursor) => api.get("/admin/exchange-deliveries", { partnerId: id, overdue: "true", cursor }),
        columns: [
          {
            label: "Message",
            cell: (d) => link(`#/deliveries/${d.id}`, `${d.messageType} ${d.messageReference}`),
          },
          { label: "Status", cell: (d) => badge(d.status) },
          { label: "Overdue since", cell: (d) => formatTime(d.overdueSince) },
          { label: "Connection", cell: (d) => link(`#/connections/${d.connectionId}`, d.connectionName) },
          { label: "Attempts", numeric: true, cell: (d) => d.attempts },
          { label: "Created", cell: (d) => formatTime(d.createdAt) },
        ],
      }),
    );
  if (can("admin.connections", "list"))
    sections.push(
      h("h2", {}, "Connections"),
      pagedTable({
        caption: "Connections of this partner",
        empty: "No connections.",
        load: (cursor) => api.get("/admin/connections", { partnerId: id, cursor }),
        columns: [
          { label: "Connection", cell: (c) => link(`#/connections/${c.id}`, c.name) },
          { label: "Status", cell: (c) => badge(c.status) },
          { label: "Profile", cell: (c) => profileSummary(c.activeProfileRevision) },
          { label: "Collection deadline", cell: (c) => formatDeadline(c.collectionDeadlineSeconds) },
        ],
      }),
    );
  if (can("admin.apiKeys", "list"))
    sections.push(
      h("h2", {}, "API keys"),
      pagedTable({
        caption: "API keys of this partner",
        empty: "No API keys.",
        load: (cursor) => api.get("/admin/api-keys", { partnerId: id, cursor }),
        columns: [
          { label: "Name", cell: (k) => k.name },
          { label: "Key id", cell: (k) => h("code", {}, k.apiKeyId) },
          {
            label: "Scopes",
            cell: (k) => k.scopes.map((s) => s.replace("b2b_exchange_partner_", "")).join(", "),
          },
          {
            label: "Connections",
            cell: (k) => (k.connectionIds ? String(k.connectionIds.length) : "all"),
          },
          { label: "Created", cell: (k) => formatTime(k.createdAt) },
          { label: "Revoked", cell: (k) => (k.revokedAt ? formatTime(k.revokedAt) : "—") },
        ],
      }),
    );
  if (can("admin.exchangeUploads", "list"))
    sections.push(
      h("h2", {}, "Recent uploads"),
      pagedTable({
        caption: "Recent uploads",
        empty: "No uploads yet.",
        load: (cursor) =>
          api.get("/admin/exchange-uploads", { partnerId: id, order: "desc", limit: 10, cursor }),
        columns: [
          { label: "Received", cell: (u) => link(`#/uploads/${u.id}`, formatTime(u.createdAt)) },
          { label: "Status", cell: (u) => badge(u.status) },
          { label: "Interchange", cell: (u) => u.interchangeId ?? "—" },
          { label: "Connection", cell: (u) => u.connectionName },
          { label: "Size", numeric: true, cell: (u) => formatBytes(u.byteCount) },
          { label: "Error", cell: (u) => u.error ?? "" },
        ],
      }),
    );
  return sections;
}
