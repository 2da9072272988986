import { api, newIdempotencyKey } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatTime, h, render, shortId } from "../dom.js";
import { can, tenantId } from "../permissions.js";
import {
  attempt,
  field,
  fieldsList,
  filterForm,
  formPanel,
  link,
  pagedTable,
  reloadableTable,
  select,
  statusSlot,
} from "../ui.js";

const requestsHref = "/workflows/transition-requests";
const listHref = "/admin/transition-requests";
const isTerminal = (status) => status === "succeeded" || status === "failed";

/*
 * The lists of transition requests come from the API (listTransitionRequests), whoever made the
 * requests. A request this tab made is followed (in memory only, never in browser storage) until
 * it is final, and the lists on the page are drawn anew at each of its changes.
 */
const listeners = new Set();
const changed = (request) => {
  for (const listener of [...listeners]) listener(request);
};

const following = new Set();
/** Reads the status document once a second (its Retry-After) until it is final. */
async function follow(requestId) {
  if (following.has(requestId)) return;
  following.add(requestId);
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const status = await api.get(`${requestsHref}/${encodeURIComponent(requestId)}`);
      changed(status);
      if (isTerminal(status.status)) return;
    }
  } catch {
    // The lists show what the API has; a status that cannot be read is not followed further.
  } finally {
    following.delete(requestId);
  }
}

const outcome = (r) =>
  r.result
    ? `${r.result.fromState} → ${r.result.toState}`
    : r.error
      ? `${r.error.code}: ${r.error.message}`
      : "—";

/**
 * The tenant's transition requests from the API, paged by its cursor: of one entity when
 * `entityId` is given, of one status when `status` is; drawn anew when a followed request changes.
 */
function requestsTable({ entityId, status } = {}) {
  if (!can("admin.transitionRequests", "list"))
    return h("p", { class: "muted" }, "Not allowed to list requests.");
  const table = reloadableTable({
    caption: "Transition requests",
    load: (cursor) => api.get(listHref, { cursor, entityId, status }),
    empty: "No transition requests.",
    columns: [
      { label: "Requested", cell: (r) => formatTime(r.createdAt) },
      { label: "Request", cell: (r) => shortId(r.requestId) },
      {
        label: "Entity",
        cell: (r) => link(`#/workflows/${r.entityId}`, `${r.entity} ${r.entityId.slice(0, 8)}`),
      },
      { label: "Transition", cell: (r) => r.transition },
      { label: "Status", cell: (r) => badge(r.status) },
      { label: "Outcome", cell: outcome },
      { label: "Completed", cell: (r) => formatTime(r.completedAt) },
    ],
  });
  const listener = (request) => {
    if (!table.element.isConnected) return listeners.delete(listener);
    if (!entityId || request.entityId === entityId) table.reload();
  };
  listeners.add(listener);
  return table.element;
}

/** Looks a transition request up by its id (e.g. one an integration made) and shows it. */
function lookupForm() {
  const found = h("div", { "aria-live": "polite" });
  const panel = formPanel(
    "Look up a transition request",
    field("Request id", { name: "requestId", required: true, maxlength: 64 }),
    "Look up",
    async (data, form) => {
      const id = String(data.get("requestId")).trim();
      const r = await api.get(`${requestsHref}/${encodeURIComponent(id)}`);
      render(
        found,
        fieldsList([
          ["Request", h("code", {}, r.requestId)],
          ["Entity", link(`#/workflows/${r.entityId}`, `${r.entity} ${r.entityId}`)],
          ["Transition", r.transition],
          ["Status", badge(r.status)],
          ["Outcome", outcome(r)],
          ["Requested", formatTime(r.createdAt)],
          ["Completed", formatTime(r.completedAt)],
        ]),
      );
      form.reset();
    },
  );
  return h("div", {}, panel, found);
}

/** Entities with their state, of one kind or all, and the transition requests of this tab. */
export function workflowsPage() {
  const results = h("div");
  const kinds = select("Kind", "kind", [{ value: "", label: "any" }]);
  const slot = statusSlot();
  void attempt(slot, async () => {
    const definitions = await api.get("/admin/workflow-definitions", { limit: 100 });
    kinds
      .querySelector("select")
      .append(...definitions.items.map((d) => h("option", { value: d.kind }, d.kind)));
  });
  const show = () => {
    const kind = kinds.querySelector("select").value;
    render(
      results,
      pagedTable({
        caption: kind ? `Entities of kind ${kind}` : "Entities",
        load: (cursor) => api.get("/admin/entities", { cursor, kind }),
        columns: [
          { label: "Entity", cell: (e) => link(`#/workflows/${e.id}`, entityName(e)) },
          { label: "Kind", cell: (e) => e.kind },
          { label: "State", cell: (e) => badge(e.state) },
          { label: "Version", numeric: true, cell: (e) => e.version },
          { label: "Updated", cell: (e) => formatTime(e.updatedAt) },
        ],
      }),
    );
  };
  show();
  const requests = h("div");
  const requestStatus = select("Request status", "status", [
    { value: "", label: "any" },
    ...enumeration("transitionStatuses").map((s) => ({ value: s, label: s })),
  ]);
  const showRequests = () =>
    render(requests, requestsTable({ status: requestStatus.querySelector("select").value || undefined }));
  showRequests();
  return h(
    "div",
    {},
    h("h1", {}, "Workflows"),
    slot,
    filterForm(kinds, show),
    results,
    h("h2", {}, "Transition requests"),
    h(
      "p",
      { class: "muted" },
      "Every transition request of the tenant, whoever made it, with its status and outcome.",
    ),
    filterForm(requestStatus, showRequests),
    requests,
    can("workflows.transitionRequests", "read") ? lookupForm() : null,
  );
}

const entityName = (e) => {
  const name = e.attributes?.name;
  return typeof name === "string" && name ? `${name} (${e.id.slice(0, 8)})` : e.id;
};

/** One entity: its state and attributes, the transitions its workflow allows now, and requesting one. */
export function entityPage(id) {
  const path = `/admin/entities/${encodeURIComponent(id)}`;
  const slot = statusSlot();
  const details = h("div", {}, h("p", {}, "Loading…"));
  const actions = h("div");
  /** One key per intended change: a retry after an error sends the same key (and is replayed). */
  let key = newIdempotencyKey();
  const show = () =>
    attempt(slot, async () => {
      const entity = await api.get(path);
      const definition = await api.get(`/admin/workflow-definitions/${encodeURIComponent(entity.kind)}`);
      const allowed = definition.transitions.filter((t) => t.from.includes(entity.state));
      render(
        details,
        fieldsList([
          ["Id", h("code", {}, entity.id)],
          ["Kind", entity.kind],
          ["State", badge(entity.state)],
          ["Version", String(entity.version)],
          ["Attributes", h("pre", { class: "payload" }, JSON.stringify(entity.attributes, null, 2))],
          ["Created", formatTime(entity.createdAt)],
          ["Updated", formatTime(entity.updatedAt)],
        ]),
      );
      if (!can("workflows.transitionRequests", "create")) return render(actions);
      if (allowed.length === 0)
        return render(actions, h("p", { class: "muted" }, `No transition leaves ${entity.state}.`));
      render(
        actions,
        formPanel(
          "Request a transition",
          [
            select(
              "Transition",
              "transition",
              allowed.map((t) => ({ value: t.name, label: `${t.name} (${entity.state} → ${t.to})` })),
              { required: true },
            ),
            field("Payload (JSON object, optional)", {
              tag: "textarea",
              name: "payload",
              rows: 2,
              placeholder: '{"reason": "ready"}',
            }),
          ],
          "Request transition",
          async (data) => {
            const text = String(data.get("payload") ?? "").trim();
            const body = {
              entity: entity.kind,
              entityId: entity.id,
              transition: String(data.get("transition")),
              ...(text ? { payload: parsePayload(text) } : {}),
            };
            const accepted = await api.post(requestsHref, body, {
              "x-idempotency-key": key,
              "x-tenant-id": tenantId(),
            });
            key = newIdempotencyKey();
            changed({ entityId: entity.id, requestId: accepted.requestId, status: accepted.status });
            void follow(accepted.requestId);
          },
        ),
      );
    });
  const refresh = (request) => {
    if (!page.isConnected) return listeners.delete(refresh);
    if (request.entityId === id && isTerminal(request.status)) void show();
  };
  listeners.add(refresh);
  void show();
  const page = h(
    "div",
    {},
    h("h1", {}, "Entity"),
    h("p", {}, link("#/workflows", "← All entities")),
    slot,
    details,
    actions,
    h("h2", {}, "Transition requests of this entity"),
    requestsTable({ entityId: id }),
  );
  return page;
}

/** The payload field's JSON object, or a validation problem shown like the API's. */
function parsePayload(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const problem = {
      title: "Bad Request",
      detail: 'The payload must be a JSON object, e.g. {"reason": "ready"}.',
      errors: [{ pointer: "/payload", message: "a JSON object" }],
    };
    throw Object.assign(new Error(problem.detail), { problem });
  }
  return value;
}
