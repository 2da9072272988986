import { api } from "../api.js";
import { badge, formatBytes, formatTime, h, render, shortId } from "../dom.js";
import { attempt, fieldsList, link, pagedTable, statusSlot } from "../ui.js";
import { exchangeFilters, filterQuery } from "./exchange-filters.js";

const statuses = ["received", "processing", "processed", "rejected", "failed"];

/** Uploads in the API's order, filtered by the API (connection, status, time), page by page. */
export function uploadsPage() {
  return h(
    "div",
    {},
    h("h1", {}, "Uploads"),
    exchangeFilters("uploads", statuses),
    pagedTable({
      caption: "Uploads",
      load: (cursor) => api.get("/admin/exchange-uploads", { ...filterQuery(), cursor }),
      columns: [
        { label: "Received", cell: (u) => link(`#/uploads/${u.id}`, formatTime(u.createdAt)) },
        { label: "Status", cell: (u) => badge(u.status) },
        { label: "Interchange", cell: (u) => u.interchangeId ?? "—" },
        { label: "Connection", cell: (u) => shortId(u.connectionId) },
        { label: "Size", numeric: true, cell: (u) => formatBytes(u.byteCount) },
        { label: "Error", cell: (u) => u.error ?? "" },
      ],
    }),
  );
}

const known = new Set([
  "id",
  "uploadId",
  "connectionId",
  "interchangeId",
  "status",
  "byteCount",
  "profileRevision",
  "error",
  "createdAt",
  "updatedAt",
  "completedAt",
]);

/** One upload: what GET /admin/exchange-uploads/{id} answers, with any findings and outbound messages. */
export function uploadPage(id) {
  const body = h("div", {}, h("p", {}, "Loading…"));
  const slot = statusSlot();
  void attempt(slot, async () => {
    const upload = await api.get(`/admin/exchange-uploads/${encodeURIComponent(id)}`);
    render(
      body,
      fieldsList([
        ["Status", badge(upload.status)],
        ["Interchange", upload.interchangeId],
        ["Upload id", h("code", {}, upload.uploadId)],
        ["Connection", h("code", {}, upload.connectionId)],
        ["Profile revision", upload.profileRevision],
        ["Size", formatBytes(upload.byteCount)],
        ["Received", formatTime(upload.createdAt)],
        ["Completed", formatTime(upload.completedAt)],
        ["Error", upload.error],
      ]),
      Object.entries(upload)
        .filter(([name]) => !known.has(name))
        .map(([name, value]) => extraSection(name, value)),
      h("p", {}, link(`#/deliveries?uploadId=${upload.id}`, "Deliveries of this upload")),
    );
  }).then((done) => {
    if (done === undefined && body.textContent === "Loading…") render(body);
  });
  return h("div", {}, h("h1", {}, "Upload"), h("p", {}, link("#/uploads", "← All uploads")), slot, body);
}

const titles = {
  findings: "Findings",
  issues: "Findings",
  outbound: "Outbound messages",
  outboundMessages: "Outbound messages",
  inbound: "Inbound interchange",
};

/** A field the route may add later: a list of records as a table, text as a block, anything else as JSON. */
function extraSection(name, value) {
  const title = titles[name] ?? name;
  if (Array.isArray(value) && value.every((v) => v && typeof v === "object")) {
    if (value.length === 0) return h("section", {}, h("h2", {}, title), h("p", { class: "muted" }, "None."));
    const columns = [...new Set(value.flatMap((v) => Object.keys(v)))];
    return h(
      "section",
      {},
      h("h2", {}, title),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", {}, title),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              columns.map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            value.map((v) =>
              h(
                "tr",
                {},
                columns.map((c) => h("td", {}, cellText(v[c]))),
              ),
            ),
          ),
        ),
      ),
    );
  }
  if (typeof value === "string")
    return h("section", {}, h("h2", {}, title), h("pre", { class: "payload" }, value));
  return h("section", {}, h("h2", {}, title), h("pre", { class: "payload" }, JSON.stringify(value, null, 2)));
}

const cellText = (value) =>
  value === null || value === undefined
    ? "—"
    : typeof value === "object"
      ? JSON.stringify(value)
      : String(value);
