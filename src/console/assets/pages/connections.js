import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import {
  attempt,
  field,
  fieldsList,
  formPanel,
  link,
  pagedTable,
  select,
  staticTable,
  statusSlot,
  withFieldErrors,
} from "../ui.js";
import { partnerSelect } from "./partners.js";

/** The API's defaults of a new profile and connection (ProfileBody, CreateConnectionBody). */
const defaults = {
  directory: "D96A",
  syntaxVersion: "3",
  syntaxIdentifier: "UNOC",
  contrl: "on-error",
  aperak: "on-error",
  ordrsp: "auto",
  orderValidation: "none",
  duplicateWindowDays: "30",
  collectionDeadlineSeconds: "86400",
};

const profileControls = () => [
  select("Directory", "directory", ["D96A", "D25A"]),
  select("Syntax version", "syntaxVersion", ["3", "4"]),
  select("Syntax identifier", "syntaxIdentifier", [
    "UNOC",
    "UNOA",
    "UNOB",
    "UNOD",
    "UNOE",
    "UNOF",
    "UNOW",
    "UNOY",
  ]),
  field("Partner id (UNB)", { name: "partnerId", required: true, maxlength: 35 }),
  field("Partner qualifier", { name: "partnerQualifier", maxlength: 4, size: 4 }),
  field("Own id (UNB)", { name: "ownId", required: true, maxlength: 35 }),
  field("Own qualifier", { name: "ownQualifier", maxlength: 4, size: 4 }),
  select("CONTRL replies", "contrl", enumeration("contrlResponses")),
  select("APERAK replies", "aperak", enumeration("aperakResponses")),
  select("ORDRSP replies", "ordrsp", enumeration("ordrspResponses")),
  select("Order validation", "orderValidation", enumeration("orderValidations")),
  field("Duplicate window (days, 0: off)", {
    name: "duplicateWindowDays",
    type: "number",
    min: 0,
    max: 3650,
    step: 1,
    required: true,
  }),
];

/** The collection deadline's control: seconds, empty for none (deliveries never overdue). */
const deadlineControl = (props = {}) =>
  field("Collection deadline (seconds, empty: never overdue)", {
    name: "collectionDeadlineSeconds",
    type: "number",
    min: 60,
    max: 2_592_000,
    step: 1,
    ...props,
  });

/** Sets a form's controls by name (those it has). */
function fill(form, values) {
  for (const [name, value] of Object.entries(values)) {
    const control = form.elements.namedItem(name);
    if (control) control.value = value ?? "";
  }
}

/** A profile revision as the values of the form's controls. */
const formValues = (p) => ({
  directory: p.directory,
  syntaxVersion: String(p.syntaxVersion),
  syntaxIdentifier: p.syntaxIdentifier,
  partnerId: p.partnerIdentification.id,
  partnerQualifier: p.partnerIdentification.qualifier ?? "",
  ownId: p.ownIdentification.id,
  ownQualifier: p.ownIdentification.qualifier ?? "",
  contrl: p.responses.contrl,
  aperak: p.responses.aperak,
  ordrsp: p.responses.ordrsp,
  orderValidation: p.orderValidation,
  duplicateWindowDays: String(p.duplicateWindowDays),
});

const identification = (id, qualifier) => (qualifier ? { id, qualifier } : { id });

const text = (data, name) => String(data.get(name) ?? "").trim();

const profileFrom = (data) => ({
  directory: text(data, "directory"),
  syntaxVersion: Number(data.get("syntaxVersion")),
  syntaxIdentifier: text(data, "syntaxIdentifier"),
  partnerIdentification: identification(text(data, "partnerId"), text(data, "partnerQualifier")),
  ownIdentification: identification(text(data, "ownId"), text(data, "ownQualifier")),
  responses: {
    contrl: text(data, "contrl"),
    aperak: text(data, "aperak"),
    ordrsp: text(data, "ordrsp"),
  },
  orderValidation: text(data, "orderValidation"),
  duplicateWindowDays: Number(data.get("duplicateWindowDays")),
});

/** The deadline control's value: seconds, or null when empty. */
const deadlineFrom = (data) => {
  const value = text(data, "collectionDeadlineSeconds");
  return value === "" ? null : Number(value);
};

/** A collection deadline for people: `86400 s (24 h)`, or that there is none. */
export function formatDeadline(seconds) {
  if (seconds === null || seconds === undefined) return "none (never overdue)";
  const hours = seconds / 3600;
  return `${seconds} s (${Number.isInteger(hours) ? `${hours} h` : `${Math.round(seconds / 60)} min`})`;
}

/** Connections with their active profile, and a form to open one for a partner. */
export function connectionsPage() {
  const list = h("div");
  const show = () =>
    render(
      list,
      pagedTable({
        caption: "Connections",
        load: (cursor) => api.get("/admin/connections", { cursor }),
        columns: [
          { label: "Connection", cell: (c) => link(`#/connections/${c.id}`, c.id) },
          { label: "Name", cell: (c) => c.name },
          { label: "Status", cell: (c) => badge(c.status) },
          {
            label: "Partner",
            cell: (c) => link(`#/partners/${c.partnerId}`, h("code", {}, c.partnerId)),
          },
          { label: "Profile", cell: (c) => profileSummary(c.activeProfileRevision) },
          { label: "Created", cell: (c) => formatTime(c.createdAt) },
        ],
      }),
    );
  show();
  const page = h("div", {}, h("h1", {}, "Connections"));
  if (can("admin.connections", "create")) {
    const slot = statusSlot();
    const partners = partnerSelect(slot);
    const form = formPanel(
      "New connection",
      [partners, ...profileControls(), deadlineControl()],
      "Open connection",
      async (data) => {
        await api.post("/admin/connections", {
          partnerId: String(data.get("partner")),
          profile: profileFrom(data),
          collectionDeadlineSeconds: deadlineFrom(data),
        });
        show();
      },
    );
    fill(form, defaults);
    page.append(form, slot);
  }
  page.append(list);
  return page;
}

export const profileSummary = (p) =>
  p
    ? `rev. ${p.revision}: ${p.directory} ${p.syntaxIdentifier}:${p.syntaxVersion}, ${p.partnerIdentification.id} → ${p.ownIdentification.id}`
    : "—";

/** The settings a profile editor shows, each as a label and its value for people. */
const settings = (profile, deadline) => [
  ["Directory", profile.directory],
  ["Syntax version", String(profile.syntaxVersion)],
  ["Syntax identifier", profile.syntaxIdentifier],
  ["Partner id (UNB)", profile.partnerIdentification.id],
  ["Partner qualifier", profile.partnerIdentification.qualifier ?? "—"],
  ["Own id (UNB)", profile.ownIdentification.id],
  ["Own qualifier", profile.ownIdentification.qualifier ?? "—"],
  ["CONTRL replies", profile.responses.contrl],
  ["APERAK replies", profile.responses.aperak],
  ["ORDRSP replies", profile.responses.ordrsp],
  ["Order validation", profile.orderValidation],
  ["Duplicate window", `${profile.duplicateWindowDays} days`],
  ["Collection deadline", formatDeadline(deadline)],
];

/**
 * What a save would change: the settings whose value differs between the active revision (with
 * the connection's deadline) and the form's.
 */
function changesOf(active, activeDeadline, next, nextDeadline) {
  const before = settings(active, activeDeadline);
  const after = settings(next, nextDeadline);
  return after
    .map(([label, value], i) => ({ label, before: before[i][1], after: value }))
    .filter((change) => change.before !== change.after);
}

/**
 * The editor of a connection's profile: the active revision's values (and the collection deadline)
 * in a form; **Preview changes** lists what differs, and **Save** creates a new revision (activated
 * at once when asked) and sets the deadline, each only when it changed.
 */
function profileEditor(connection, path, saved) {
  const active = connection.activeProfileRevision;
  const mayUpdate = can("admin.connections", "update");
  const mayActivate = can("admin.connections", "activateProfileRevision");
  const preview = h("div", { "aria-live": "polite" });
  const form = formPanel(
    "Edit the profile (a new revision)",
    [...profileControls(), deadlineControl({ disabled: !mayUpdate })],
    "Preview changes",
    async (data) => {
      const next = profileFrom(data);
      const deadline = mayUpdate ? deadlineFrom(data) : connection.collectionDeadlineSeconds;
      showPreview(next, deadline);
    },
  );
  fill(form, {
    ...formValues(active),
    collectionDeadlineSeconds: connection.collectionDeadlineSeconds ?? "",
  });
  // A preview is of the values it was made from: any edit takes it away.
  form.addEventListener("input", () => render(preview));

  function showPreview(next, deadline) {
    const changes = changesOf(active, connection.collectionDeadlineSeconds, next, deadline);
    if (changes.length === 0) {
      render(
        preview,
        h("p", { class: "notice", role: "status" }, "Nothing changes: the form is the active profile."),
      );
      return;
    }
    const profileChanges = changes.filter((c) => c.label !== "Collection deadline");
    const deadlineChanges = changes.length > profileChanges.length;
    const activate = h("input", { type: "checkbox", name: "activate", checked: true });
    const slot = statusSlot();
    const save = h(
      "button",
      { type: "button" },
      profileChanges.length > 0 ? "Save as a new revision" : "Save the deadline",
    );
    save.addEventListener("click", () => {
      save.disabled = true;
      void attempt(slot, () =>
        withFieldErrors(form, async () => {
          let created = null;
          if (profileChanges.length > 0) {
            created = await api.post(`${path}/profile-revisions`, next);
            if (mayActivate && activate.checked)
              created = await api.post(`${path}/profile-revisions/${created.revision}/activate`);
          }
          if (deadlineChanges) await api.patch(path, { collectionDeadlineSeconds: deadline });
          saved(
            [
              created
                ? `Revision ${created.revision} created${created.active ? " and active" : " (not active yet)"}.`
                : null,
              deadlineChanges ? `Collection deadline: ${formatDeadline(deadline)}.` : null,
            ]
              .filter(Boolean)
              .join(" "),
          );
        }),
      ).finally(() => {
        save.disabled = false;
      });
    });
    render(
      preview,
      h(
        "section",
        { class: "panel", "aria-label": "Preview" },
        h("h3", {}, `What changes against revision ${active.revision}`),
        staticTable(
          "Changes",
          [
            { label: "Setting", cell: (c) => c.label },
            { label: `Now (rev. ${active.revision})`, cell: (c) => h("del", {}, c.before) },
            { label: "After saving", cell: (c) => h("ins", {}, c.after) },
          ],
          changes,
        ),
        profileChanges.length > 0 && mayActivate
          ? h("label", { class: "check" }, activate, "Activate the new revision at once")
          : null,
        profileChanges.length > 0 && !mayActivate
          ? h("p", { class: "muted" }, "The new revision is not active until someone activates it.")
          : null,
        h("div", { class: "row" }, save),
        slot,
      ),
    );
  }
  return h("div", {}, form, preview);
}

/**
 * One connection: its settings, suspending and resuming it, editing its profile as a new revision
 * with a preview of what changes, its profile revisions and activating one.
 */
export function connectionPage(id) {
  const path = `/admin/connections/${encodeURIComponent(id)}`;
  const slot = statusSlot();
  const done = h("div", { "aria-live": "polite" });
  const details = h("div");
  const editor = h("div");
  const revisions = h("div");
  const saved = (message) => {
    render(done, h("p", { class: "notice", role: "status" }, message));
    show();
  };
  const setStatus = (connection, status) =>
    attempt(slot, async () => {
      const question =
        status === "suspended"
          ? `Suspend the connection "${connection.name}"? Its partner's uploads and mailbox reads are refused until it is resumed.`
          : `Resume the connection "${connection.name}"? Its partner can upload and collect again.`;
      if (!confirm(question)) return;
      const updated = await api.patch(path, { status });
      saved(`The connection is ${updated.status} now.`);
    });
  const statusActions = (connection) => {
    if (!can("admin.connections", "update")) return null;
    const suspend = connection.status === "active";
    return h(
      "p",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          class: suspend ? "danger" : null,
          onclick: () => void setStatus(connection, suspend ? "suspended" : "active"),
        },
        suspend ? "Suspend connection" : "Resume connection",
      ),
    );
  };
  const show = () => {
    void attempt(slot, async () => {
      const connection = await api.get(path);
      render(
        details,
        fieldsList([
          ["Id", h("code", {}, connection.id)],
          ["Name", connection.name],
          ["Status", badge(connection.status)],
          ["Partner", link(`#/partners/${connection.partnerId}`, h("code", {}, connection.partnerId))],
          ["Active profile", profileSummary(connection.activeProfileRevision)],
          ["Collection deadline", formatDeadline(connection.collectionDeadlineSeconds)],
          ["Uploads", link(`#/uploads?connectionId=${connection.id}`, "Uploads of this connection")],
        ]),
        statusActions(connection),
      );
      render(
        editor,
        can("admin.connections", "createProfileRevision") ? profileEditor(connection, path, saved) : null,
      );
    });
    render(
      revisions,
      pagedTable({
        caption: "Profile revisions",
        load: (cursor) => api.get(`${path}/profile-revisions`, { cursor }),
        columns: [
          { label: "Revision", numeric: true, cell: (r) => r.revision },
          { label: "Profile", cell: (r) => profileSummary(r) },
          {
            label: "Replies",
            cell: (r) =>
              `CONTRL ${r.responses.contrl}, APERAK ${r.responses.aperak}, ORDRSP ${r.responses.ordrsp}`,
          },
          { label: "Order validation", cell: (r) => r.orderValidation },
          { label: "Duplicate window", numeric: true, cell: (r) => `${r.duplicateWindowDays} d` },
          { label: "Created", cell: (r) => formatTime(r.createdAt) },
          {
            label: "Active",
            cell: (r) =>
              r.active
                ? badge("active")
                : can("admin.connections", "activateProfileRevision")
                  ? h(
                      "button",
                      {
                        type: "button",
                        class: "secondary",
                        onclick: () =>
                          void attempt(slot, async () => {
                            await api.post(`${path}/profile-revisions/${r.revision}/activate`);
                            saved(`Revision ${r.revision} is active now.`);
                          }),
                      },
                      `Activate revision ${r.revision}`,
                    )
                  : "",
          },
        ],
      }),
    );
  };
  show();
  return h(
    "div",
    {},
    h("h1", {}, "Connection"),
    h("p", {}, link("#/connections", "← All connections")),
    slot,
    done,
    details,
    h("h2", {}, "Profile"),
    editor,
    h("h2", {}, "Profile revisions"),
    revisions,
  );
}
