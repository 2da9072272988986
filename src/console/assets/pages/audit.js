import { api } from "../api.js";
import { formatBytes, formatTime, h, render, shortId } from "../dom.js";
import { field, filterForm, pagedTable } from "../ui.js";

/** Audit events, oldest first (the API's order), filtered by type on the server. */
export function auditPage() {
  const results = h("div");
  const type = field("Event type", {
    name: "type",
    placeholder: "e.g. upload.received",
    maxlength: 64,
  });
  const input = type.querySelector("input");
  const show = () => {
    const type = input.value.trim();
    render(
      results,
      pagedTable({
        caption: type ? `Audit events of type ${type}` : "Audit events",
        load: (cursor) => api.get("/admin/audit-events", { cursor, type }),
        columns: [
          { label: "When", cell: (e) => formatTime(e.occurredAt) },
          { label: "Type", cell: (e) => h("code", {}, e.type) },
          { label: "Outcome", cell: (e) => e.outcome ?? "—" },
          { label: "Principal", cell: (e) => shortId(e.principalId) },
          { label: "Connection", cell: (e) => shortId(e.connectionId) },
          {
            label: "Upload",
            cell: (e) =>
              e.uploadId ? h("a", { href: `#/uploads/${e.uploadId}` }, e.uploadId.slice(0, 8)) : "—",
          },
          { label: "Bytes", numeric: true, cell: (e) => formatBytes(e.byteCount) },
        ],
      }),
    );
  };
  const form = filterForm(type, show);
  show();
  return h("div", {}, h("h1", {}, "Audit events"), form, results);
}
