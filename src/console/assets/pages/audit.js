import { api } from "../api.js";
import { formatBytes, formatTime, fromLocalInput, h, render, shortId, toLocalInput } from "../dom.js";
import { can } from "../permissions.js";
import {
  attempt,
  field,
  fieldsList,
  filterForm,
  link,
  pagedTable,
  select,
  statusSlot,
  withFieldErrors,
} from "../ui.js";
import { applyToHash, hashParams } from "./exchange-filters.js";

const auditHref = "/admin/audit-events";
const filterNames = ["type", "principalId", "targetId", "occurredFrom", "occurredBefore"];

/**
 * The console's page for what an audit record names (`targetType`): a detail page where there is
 * one, else the section's list; null when the credential may not open that section (then the id
 * is shown as it is).
 */
const targetPages = {
  upload: { entrypoint: "admin.exchangeUploads", href: (id) => `#/uploads/${id}` },
  connection: { entrypoint: "admin.connections", href: (id) => `#/connections/${id}` },
  partner: { entrypoint: "admin.partners", href: () => "#/partners" },
  delivery: { entrypoint: "admin.exchangeDeliveries", href: () => "#/deliveries" },
  api_key: { entrypoint: "admin.apiKeys", href: () => "#/api-keys" },
  app: { entrypoint: "admin.apps", href: (id) => `#/apps/${id}` },
  service_binding: { entrypoint: "admin.serviceBindings", href: () => "#/service-bindings" },
  webhook_subscription: { entrypoint: "admin.webhookSubscriptions", href: (id) => `#/webhooks/${id}` },
  user: { entrypoint: "admin.users", href: () => "#/users" },
  tenant: { entrypoint: "system.tenants", href: () => "#/tenants" },
};

/** What a record names: its type and a link to its page (or its id where the console has none). */
export function targetCell(event) {
  if (!event.targetType) return shortId(event.connectionId ?? event.uploadId);
  const page = targetPages[event.targetType];
  const id = event.targetId ?? "";
  const label = `${event.targetType.replaceAll("_", " ")} ${id.slice(0, 8)}`.trim();
  if (page && id && can(page.entrypoint, "list"))
    return h("a", { href: page.href(encodeURIComponent(id)), title: id }, label);
  return h(
    "span",
    { title: id || null },
    event.targetType.replaceAll("_", " "),
    " ",
    h("code", {}, id || "—"),
  );
}

/** Who acted: the kind of principal and its id (a user links to the Users page). */
function principalCell(event) {
  if (!event.principalId) return event.principalKind ?? "—";
  const kind = (event.principalKind ?? "principal").replaceAll("_", " ");
  const id = h("code", { title: event.principalId }, event.principalId.slice(0, 8));
  return event.principalKind === "user" && can("admin.users", "list")
    ? h("a", { href: "#/users" }, `${kind} `, id)
    : h("span", {}, `${kind} `, id);
}

/** The trail's verification (rules/contract §7): verified with its extent, or the first record that is not. */
function verificationPanel() {
  if (!can("admin.auditEvents", "verify")) return null;
  const panel = h("section", { class: "panel", "aria-label": "Verification" }, h("p", {}, "Verifying…"));
  const slot = statusSlot();
  void attempt(slot, async () => {
    const v = await api.get(`${auditHref}/verification`);
    render(
      panel,
      v.verified
        ? h(
            "p",
            { role: "status" },
            h("span", { class: "badge good" }, "✓ verified"),
            ` ${v.count} sealed record${v.count === 1 ? "" : "s"} verified, checked through ${formatTime(v.checkedThrough)}.`,
          )
        : h(
            "div",
            { class: "alert", role: "alert" },
            h("strong", {}, "The audit trail does not verify"),
            `: a record was ${v.problem?.kind ?? "changed"} at sequence ${v.problem?.sequence ?? "?"}`,
            v.problem?.eventId
              ? [
                  " (record ",
                  link(`#/audit/${encodeURIComponent(v.problem.eventId)}`, v.problem.eventId),
                  ")",
                ]
              : " (records missing at the chain's end)",
            `. ${v.count} record${v.count === 1 ? "" : "s"} before it verified, checked through ${formatTime(v.checkedThrough)}.`,
          ),
      v.unsealed > 0
        ? h(
            "p",
            { class: "muted" },
            `${v.unsealed} record${v.unsealed === 1 ? " is" : "s are"} not sealed yet: records are sealed within a minute of being written and verified from then on.`,
          )
        : null,
      slot,
    );
  }).then(() => {
    // Refused (or failed): the panel shows the problem instead.
    if (slot.childElementCount > 0) render(panel, slot);
  });
  return panel;
}

/** The audit list's filters as the hash carries them: the API's query. */
function auditQuery() {
  const params = hashParams();
  const query = { order: params.get("order") === "asc" ? "asc" : "desc" };
  for (const name of filterNames) {
    const value = params.get(name);
    if (value) query[name] = value;
  }
  return query;
}

function auditFilters() {
  const params = hashParams();
  const text = (label, name, props) => field(label, { name, value: params.get(name) ?? "", ...props });
  const time = (label, name) =>
    field(label, { name, type: "datetime-local", value: toLocalInput(params.get(name)) });
  const form = filterForm(
    [
      text("Type or prefix", "type", { placeholder: "user. or partner.created", maxlength: 64 }),
      text("Who (principal id)", "principalId", { maxlength: 36 }),
      text("What (target id)", "targetId", { maxlength: 200 }),
      time("Occurred from", "occurredFrom"),
      time("Occurred before", "occurredBefore"),
      select("Order", "order", [
        { value: "", label: "newest first" },
        { value: "asc", label: "oldest first" },
      ]),
    ],
    () => {
      const query = {};
      for (const name of filterNames) {
        const value = form.elements[name].value.trim();
        query[name] = form.elements[name].type === "datetime-local" ? fromLocalInput(value) : value;
      }
      query.order = form.elements.order.value;
      applyToHash("audit", query);
    },
  );
  form.elements.order.value = params.get("order") === "asc" ? "asc" : "";
  return form;
}

/**
 * Audit records newest first (or oldest), filtered by the API (type or type prefix, who, what,
 * time range), each linking to what it names; the trail's verification at the top.
 */
export function auditPage() {
  const form = auditFilters();
  const query = auditQuery();
  return h(
    "div",
    {},
    h("h1", {}, "Audit events"),
    verificationPanel(),
    form,
    pagedTable({
      caption: "Audit events",
      // The server's refusal of a filter (from later than before) is shown at its field.
      load: (cursor) => withFieldErrors(form, () => api.get(auditHref, { ...query, cursor })),
      empty: "No audit events match.",
      columns: [
        { label: "When", cell: (e) => link(`#/audit/${e.id}`, formatTime(e.occurredAt)) },
        { label: "Type", cell: (e) => h("code", {}, e.type) },
        { label: "Who", cell: principalCell },
        { label: "What", cell: targetCell },
        { label: "Outcome", cell: (e) => e.outcome ?? "—" },
        { label: "From", cell: (e) => e.sourceAddress ?? "—" },
      ],
    }),
  );
}

/** One audit record with every field. */
export function auditEventPage(id) {
  const slot = statusSlot();
  const details = h("div", {}, h("p", {}, "Loading…"));
  void attempt(slot, async () => {
    const e = await api.get(`${auditHref}/${encodeURIComponent(id)}`);
    render(
      details,
      fieldsList([
        ["Id", h("code", {}, e.id)],
        ["Type", h("code", {}, e.type)],
        ["When", formatTime(e.occurredAt)],
        ["Who", principalCell(e)],
        ["Principal id", e.principalId ? h("code", {}, e.principalId) : null],
        ["What", e.targetType ? targetCell(e) : null],
        ["Target id", e.targetId ? h("code", {}, e.targetId) : null],
        ["Changed fields", e.changes?.join(", ")],
        ["Method", e.method],
        ["Outcome", e.outcome],
        ["Source address", e.sourceAddress],
        ["Correlation id", e.correlationId ? h("code", {}, e.correlationId) : null],
        ["Connection", e.connectionId ? link(`#/connections/${e.connectionId}`, e.connectionId) : null],
        ["Upload", e.uploadId ? link(`#/uploads/${e.uploadId}`, e.uploadId) : null],
        ["Delivery", e.deliveryAttemptId ? h("code", {}, e.deliveryAttemptId) : null],
        ["Bytes", e.byteCount === null ? null : formatBytes(e.byteCount)],
        ["Data", Object.keys(e.data ?? {}).length ? h("code", {}, JSON.stringify(e.data)) : null],
      ]),
    );
  });
  return h(
    "div",
    {},
    h("h1", {}, "Audit event"),
    h("p", {}, link("#/audit", "← All audit events")),
    slot,
    details,
  );
}
