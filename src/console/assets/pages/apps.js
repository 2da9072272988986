import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatTime, fromLocalInput, h, render, shortId, toLocalInput } from "../dom.js";
import { can } from "../permissions.js";
import {
  attempt,
  checkboxes,
  field,
  fieldsList,
  formPanel,
  link,
  pagedTable,
  reloadableTable,
  select,
  statusSlot,
} from "../ui.js";

const appHref = (appId) => `/admin/apps/${encodeURIComponent(appId)}`;
const actorHref = (appId, actorId) => `${appHref(appId)}/entitlements/${encodeURIComponent(actorId)}`;
const actorLink = (appId, actorId) =>
  link(`#/apps/${encodeURIComponent(appId)}/${encodeURIComponent(actorId)}`, actorId);

/** Comma- or space-separated values of a text field, without empties. */
export const listOf = (text) =>
  String(text ?? "")
    .split(/[\s,]+/)
    .filter(Boolean);

/** The apps whose entitlements Hanse keeps, and a form to define one. */
export function appsPage() {
  const { element: list, reload: show } = reloadableTable({
    caption: "Apps",
    load: (cursor) => api.get("/admin/apps", { cursor }),
    columns: [
      { label: "App", cell: (a) => link(`#/apps/${encodeURIComponent(a.id)}`, a.id) },
      { label: "Name", cell: (a) => a.name },
      { label: "Capabilities", cell: (a) => a.capabilities.join(", ") },
      { label: "Created", cell: (a) => formatTime(a.createdAt) },
    ],
  });
  return h(
    "div",
    {},
    h("h1", {}, "Apps"),
    can("admin.apps", "create")
      ? formPanel(
          "New app",
          [
            field("App id", { name: "id", required: true, maxlength: 64 }),
            field("Name", { name: "name", required: true, maxlength: 200 }),
            field("Capabilities (comma-separated)", { name: "capabilities", maxlength: 2000 }),
          ],
          "Create app",
          async (data, form) => {
            await api.post("/admin/apps", {
              id: String(data.get("id")).trim(),
              name: String(data.get("name")).trim(),
              capabilities: listOf(data.get("capabilities")),
            });
            form.reset();
            show();
          },
        )
      : null,
    list,
  );
}

/** One app with its actors' entitlements (`#/apps/{app}`), or one actor's (`#/apps/{app}/{actor}`). */
export function appPage(appId, actorId) {
  if (actorId) return actorPage(appId, actorId);
  const slot = statusSlot();
  const details = h("div");
  const setter = h("div");
  const list = h("div");
  const show = () =>
    render(
      list,
      pagedTable({
        caption: "Entitlements",
        load: (cursor) => api.get(`${appHref(appId)}/entitlements`, { cursor }),
        columns: [
          { label: "Actor", cell: (e) => actorLink(appId, e.actorId) },
          { label: "Status", cell: (e) => badge(e.status) },
          { label: "Plan", cell: (e) => e.plan },
          { label: "Capabilities", cell: (e) => e.capabilities.join(", ") || "—" },
          { label: "Valid", cell: (e) => validity(e) },
          { label: "Change", numeric: true, cell: (e) => e.sequence },
        ],
      }),
    );
  void attempt(slot, async () => {
    const app = await api.get(appHref(appId));
    render(
      details,
      fieldsList([
        ["App", h("code", {}, app.id)],
        ["Name", app.name],
        ["Capabilities", app.capabilities.join(", ") || "—"],
        ["Created", formatTime(app.createdAt)],
      ]),
    );
    if (can("admin.entitlements", "update"))
      render(
        setter,
        entitlementForm(app, null, (entitlement) => {
          location.hash = `#/apps/${encodeURIComponent(appId)}/${encodeURIComponent(entitlement.actorId)}`;
        }),
      );
  });
  show();
  return h(
    "div",
    {},
    h("h1", {}, `App ${appId}`),
    h("p", {}, link("#/apps", "← All apps")),
    slot,
    details,
    setter,
    h("h2", {}, "Entitlements"),
    list,
  );
}

const validity = (e) => `${formatTime(e.validFrom)} – ${e.validUntil ? formatTime(e.validUntil) : "no end"}`;

/** The form that sets (replaces) an actor's entitlement; `current` fills it when the actor has one. */
function entitlementForm(app, current, done) {
  const form = formPanel(
    current ? "Change the entitlement" : "Set an actor's entitlement",
    [
      current ? null : field("Actor id", { name: "actorId", required: true, maxlength: 128 }),
      select("Status", "status", enumeration("entitlementStatuses")),
      field("Plan", { name: "plan", required: true, maxlength: 100, value: current?.plan ?? "" }),
      checkboxes("Capabilities", "capability", app.capabilities, (c) =>
        current ? current.capabilities.includes(c) : true,
      ),
      field("Valid until (empty: no end)", {
        name: "validUntil",
        type: "datetime-local",
        value: toLocalInput(current?.validUntil),
      }),
    ],
    current ? "Save entitlement" : "Set entitlement",
    async (data) => {
      const actorId = current?.actorId ?? String(data.get("actorId")).trim();
      const until = fromLocalInput(String(data.get("validUntil") ?? ""));
      const entitlement = await api.put(actorHref(app.id, actorId), {
        status: String(data.get("status")),
        plan: String(data.get("plan")).trim(),
        capabilities: data.getAll("capability").map(String),
        validUntil: until ?? null,
      });
      done(entitlement);
    },
  );
  if (current) form.elements.status.value = current.status;
  return form;
}

/**
 * One actor's entitlement: its state, the change of the app's stream that set it, a form to
 * change it, and its history (its changes still kept in the app's change feed, newest first).
 */
function actorPage(appId, actorId) {
  const slot = statusSlot();
  const details = h("div", {}, h("p", {}, "Loading…"));
  const setter = h("div");
  const history = h("div");
  const show = () => {
    render(history, historyTable(appId, actorId));
    return attempt(slot, async () => {
      const [app, entitlement] = await Promise.all([
        api.get(appHref(appId)),
        api.get(actorHref(appId, actorId)).catch((error) => {
          if (error.status === 404) return null;
          throw error;
        }),
      ]);
      render(
        details,
        entitlement
          ? fieldsList([
              ["Actor", h("code", {}, entitlement.actorId)],
              ["Status", badge(entitlement.status)],
              ["Plan", entitlement.plan],
              ["Capabilities", entitlement.capabilities.join(", ") || "—"],
              ["Valid from", formatTime(entitlement.validFrom)],
              ["Valid until", entitlement.validUntil ? formatTime(entitlement.validUntil) : "no end"],
              ["Change (sequence)", String(entitlement.sequence)],
              ["Updated", formatTime(entitlement.updatedAt)],
            ])
          : h("p", {}, `${actorId} has no entitlement for ${appId}.`),
      );
      if (can("admin.entitlements", "update"))
        render(
          setter,
          entitlementForm(
            app,
            entitlement ?? { actorId, plan: "", status: "active", capabilities: [] },
            () => void show(),
          ),
        );
    });
  };
  void show();
  return h(
    "div",
    {},
    h("h1", {}, `Entitlement of ${actorId}`),
    h("p", {}, link(`#/apps/${encodeURIComponent(appId)}`, `← App ${appId}`)),
    slot,
    details,
    setter,
    h("h2", {}, "History"),
    history,
  );
}

/**
 * The actor's changes, newest first, page by page. They are kept as long as the app's change
 * feed keeps them: when earlier changes of the app were pruned, a note says so.
 */
function historyTable(appId, actorId) {
  const pruned = h("p", { class: "muted", hidden: true });
  const table = pagedTable({
    caption: `Changes of ${actorId}`,
    empty: "No changes kept.",
    load: async (cursor) => {
      const page = await api.get(`${actorHref(appId, actorId)}/changes`, { cursor });
      if (page.meta.prunedThrough > 0) {
        pruned.textContent =
          `Changes of ${appId} up to sequence ${page.meta.prunedThrough} are no longer kept ` +
          "(the change feed's retention): earlier changes of this actor are not shown.";
        pruned.hidden = false;
      }
      return page;
    },
    columns: [
      { label: "Change", numeric: true, cell: (c) => c.sequence },
      { label: "When", cell: (c) => formatTime(c.occurredAt) },
      { label: "Status", cell: (c) => (c.entitlement ? badge(c.entitlement.status) : "removed") },
      { label: "Plan", cell: (c) => c.entitlement?.plan ?? "—" },
      { label: "Capabilities", cell: (c) => c.entitlement?.capabilities.join(", ") || "—" },
      { label: "Valid", cell: (c) => (c.entitlement ? validity(c.entitlement) : "—") },
      { label: "Changed by", cell: (c) => shortId(c.changedBy) },
    ],
  });
  return h("div", {}, pruned, table);
}
