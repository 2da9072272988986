import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatBytes, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import {
  attempt,
  downloadButton,
  field,
  fieldsList,
  link,
  pagedTable,
  select,
  staticTable,
  statusSlot,
} from "../ui.js";
import { exchangeFilters, filterQuery, hashParams } from "./exchange-filters.js";

/** The search box and the order of the uploads page (rules/contract §8), as extra filter controls. */
const searchControls = () => [
  {
    name: "q",
    control: field("Interchange or order number", {
      name: "q",
      type: "search",
      maxlength: 70,
      placeholder: "4711 or PO4713",
    }),
  },
  {
    name: "order",
    control: select("Order", "order", [
      { value: "", label: "newest first" },
      { value: "asc", label: "oldest first" },
    ]),
  },
];

/**
 * The uploads page's loader: newest first unless the hash asks for `order=asc`; a search term is
 * tried as a document number (BGM 1004, an order number) and as an interchange reference (UNB
 * 0020), and the one that finds uploads is paged on (the cursor is bound to that filter).
 */
function uploadsLoader() {
  let searchBy;
  return async (cursor) => {
    const params = hashParams();
    const query = { ...filterQuery(), order: params.get("order") === "asc" ? "asc" : "desc", cursor };
    const q = params.get("q")?.trim() ?? "";
    const get = (extra) => api.get("/admin/exchange-uploads", { ...query, ...extra });
    if (!q) return get({});
    if (searchBy) return get({ [searchBy]: q });
    const asReference = /^\S{1,35}$/.test(q);
    const [byNumber, byReference] = await Promise.all([
      get({ documentNumber: q }),
      asReference ? get({ interchangeReference: q }) : null,
    ]);
    const useReference = byReference !== null && byNumber.items.length === 0 && byReference.items.length > 0;
    searchBy = useReference ? "interchangeReference" : "documentNumber";
    return useReference ? byReference : byNumber;
  };
}

/**
 * Uploads newest first (or oldest), filtered by the API (connection, status, time) or found by
 * interchange reference or order number, page by page, with partner and connection names.
 */
export function uploadsPage() {
  return h(
    "div",
    {},
    h("h1", {}, "Uploads"),
    exchangeFilters("uploads", enumeration("uploadStatuses"), searchControls()),
    pagedTable({
      caption: "Uploads",
      load: uploadsLoader(),
      columns: [
        { label: "Received", cell: (u) => link(`#/uploads/${u.id}`, formatTime(u.createdAt)) },
        { label: "Status", cell: (u) => badge(u.status) },
        { label: "Interchange", cell: (u) => u.interchangeId ?? "—" },
        { label: "Partner", cell: (u) => u.partnerName },
        { label: "Connection", cell: (u) => u.connectionName },
        { label: "Size", numeric: true, cell: (u) => formatBytes(u.byteCount) },
        { label: "Findings", numeric: true, cell: (u) => u.findingCount ?? "—" },
        { label: "Outbound", cell: (u) => outboundSummary(u.outboundCounts) },
        { label: "Error", cell: (u) => u.error ?? "" },
      ],
    }),
  );
}

/** A name for a file: letters, digits, `.`, `-` and `_`; anything else becomes `_`. */
const fileSafe = (text) => String(text).replace(/[^\w.-]/g, "_");

/** `{"CONTRL":1,"ORDRSP":2}` as "CONTRL 1, ORDRSP 2". */
const outboundSummary = (counts) =>
  Object.entries(counts ?? {})
    .map(([type, count]) => `${type} ${count}`)
    .join(", ") || "none";

/**
 * One upload: its fields, a download of its bytes as received (the audited content read), the
 * findings processing recorded, and the inbound interchange as a
 * segment tree with each finding at its segment and element, beside the outbound messages that
 * answer it (a CONTRL beside the interchange, an APERAK or ORDRSP beside the message it answers).
 */
export function uploadPage(id) {
  const href = `/admin/exchange-uploads/${encodeURIComponent(id)}`;
  const body = h("div", {}, h("p", {}, "Loading…"));
  const slot = statusSlot();
  void attempt(slot, async () => {
    const upload = await api.get(href);
    const outbound = upload.outbound ?? [];
    const [inbound, answers] = await Promise.all([
      can("admin.exchangeUploads", "segments") ? api.get(`${href}/segments`) : null,
      can("admin.exchangeDeliveries", "segments")
        ? Promise.all(
            outbound.map((o) =>
              api.get(`/admin/exchange-deliveries/${encodeURIComponent(o.deliveryAttemptId)}/segments`),
            ),
          )
        : [],
    ]);
    render(
      body,
      fieldsList([
        ["Status", badge(upload.status)],
        ["Interchange", upload.interchangeId],
        ["Upload id", h("code", {}, upload.uploadId)],
        ["Partner", upload.partnerName],
        ["Connection", [upload.connectionName, " ", h("code", {}, upload.connectionId)]],
        ["Profile revision", upload.profileRevision],
        ["Size", formatBytes(upload.byteCount)],
        ["Received", formatTime(upload.createdAt)],
        ["Completed", formatTime(upload.completedAt)],
        ["Error", upload.error],
        [
          "Duplicate of",
          upload.duplicateOf ? link(`#/uploads/${upload.duplicateOf}`, upload.duplicateOf) : null,
        ],
        [
          "Outbound",
          outbound.length === 0
            ? "none"
            : outbound.map((o) => `${o.messageType} ${o.messageReference}`).join(", "),
        ],
      ]),
      h(
        "p",
        { class: "actions" },
        link(`#/deliveries?uploadId=${upload.id}`, "Deliveries of this upload"),
        can("admin.exchangeUploads", "content")
          ? [
              " ",
              downloadButton(
                slot,
                `${href}/content`,
                `upload-${fileSafe(upload.interchangeId ?? upload.id)}.edi`,
              ),
            ]
          : null,
      ),
      h("h2", {}, "Findings"),
      findingsTable(upload.findings ?? []),
      inbound
        ? [
            h("h2", {}, "Interchange and answers"),
            exchangeView(
              inbound,
              outbound.map((o, i) => ({ ...o, tree: answers[i] })),
            ),
          ]
        : null,
    );
  }).then((done) => {
    if (done === undefined && body.textContent === "Loading…") render(body);
  });
  return h("div", {}, h("h1", {}, "Upload"), h("p", {}, link("#/uploads", "← All uploads")), slot, body);
}

const where = (f) =>
  [
    f.segment ? `${f.segment}${f.position ? ` (segment ${f.position})` : ""}` : null,
    f.element ? `element ${f.element}` : null,
  ]
    .filter(Boolean)
    .join(", ") || "interchange";

function findingsTable(findings) {
  return staticTable(
    "Findings",
    [
      { label: "Level", cell: (f) => f.level },
      { label: "Code", cell: (f) => h("code", {}, f.code) },
      { label: "Where", cell: where },
      { label: "Message", cell: (f) => f.messageReference ?? "—" },
      { label: "Reason", cell: (f) => f.message },
    ],
    findings,
    "No findings: the interchange passed every check.",
  );
}

/** A finding as a line under its segment: code (0085, or the APERAK's), element, plain reason. */
const findingLine = (f) =>
  h(
    "li",
    { class: "finding" },
    h("strong", {}, `Code ${f.code}`),
    f.element ? ` at element ${f.element}` : "",
    `: ${f.message}`,
  );

/** Segments as an indented tree (depth and segment group), findings under their segment. */
function segmentTree(label, tree) {
  return h(
    "ol",
    { class: "segments", "aria-label": label },
    tree.map((s) =>
      h(
        "li",
        {
          class: `segment depth-${Math.min(s.depth, 8)}${s.findings.length ? " has-findings" : ""}`,
          "data-position": s.position,
        },
        h("span", { class: "muted pos" }, String(s.position)),
        s.group ? h("span", { class: "group" }, s.group) : null,
        h("code", {}, s.text),
        s.findings.length ? h("ul", { class: "findings" }, s.findings.map(findingLine)) : null,
      ),
    ),
  );
}

/** The UNH reference (0062) of a UNH segment's text. */
const unhReference = (text) => text.split("+")[1] ?? "";

/**
 * The inbound interchange cut into its envelope and its messages, each beside the outbound
 * messages that answer it: `answersMessageReference` null (a CONTRL) answers the interchange.
 */
function exchangeView(inbound, outbound) {
  const parts = [];
  let current = { reference: null, segments: [] };
  parts.push(current);
  for (const segment of inbound.segments) {
    if (segment.tag === "UNH") {
      current = { reference: unhReference(segment.text), segments: [] };
      parts.push(current);
    }
    current.segments.push(segment);
    if (segment.tag === "UNT") {
      current = { reference: null, segments: [], trailer: true };
      parts.push(current);
    }
  }
  const answering = (reference) => outbound.filter((o) => (o.answersMessageReference ?? null) === reference);
  return h(
    "div",
    { class: "exchange" },
    inbound.findings.length ? h("ul", { class: "findings" }, inbound.findings.map(findingLine)) : null,
    inbound.notes.map((note) => h("p", { class: "muted" }, note)),
    parts
      .filter((part) => part.segments.length > 0)
      .map((part) => {
        const title =
          part.reference !== null
            ? `Message ${part.reference}`
            : part.trailer
              ? "Interchange trailer"
              : "Interchange";
        const answers = part.trailer ? [] : answering(part.reference);
        return h(
          "section",
          { class: "pair", "aria-label": title },
          h("div", {}, h("h3", {}, `Inbound · ${title}`), segmentTree(`Inbound ${title}`, part.segments)),
          h(
            "div",
            {},
            answers.length === 0
              ? h("p", { class: "muted" }, part.trailer ? "" : "No answer to this part.")
              : answers.map((o) => [
                  h("h3", {}, `Outbound · ${o.messageType} ${o.messageReference} `, badge(o.status)),
                  o.tree
                    ? segmentTree(`Outbound ${o.messageType} ${o.messageReference}`, o.tree.segments)
                    : null,
                ]),
          ),
        );
      }),
  );
}
