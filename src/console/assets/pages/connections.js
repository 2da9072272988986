import { api } from "../api.js";
import { badge, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, fieldsList, formPanel, link, pagedTable, select, statusSlot } from "../ui.js";
import { partnerSelect } from "./partners.js";

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
];

const identification = (id, qualifier) => (qualifier ? { id, qualifier } : { id });

const profileFrom = (data) => ({
  directory: String(data.get("directory")),
  syntaxVersion: Number(data.get("syntaxVersion")),
  syntaxIdentifier: String(data.get("syntaxIdentifier")),
  partnerIdentification: identification(
    String(data.get("partnerId")),
    String(data.get("partnerQualifier") ?? ""),
  ),
  ownIdentification: identification(String(data.get("ownId")), String(data.get("ownQualifier") ?? "")),
});

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
          { label: "Partner", cell: (c) => h("code", {}, c.partnerId) },
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
    page.append(
      formPanel("New connection", [partners, ...profileControls()], "Open connection", async (data) => {
        await api.post("/admin/connections", {
          partnerId: String(data.get("partner")),
          profile: profileFrom(data),
        });
        show();
      }),
      slot,
    );
  }
  page.append(list);
  return page;
}

const profileSummary = (p) =>
  p
    ? `rev. ${p.revision}: ${p.directory} ${p.syntaxIdentifier}:${p.syntaxVersion}, ${p.partnerIdentification.id} → ${p.ownIdentification.id}`
    : "—";

/** One connection: its profile revisions, a new revision, activating one. */
export function connectionPage(id) {
  const path = `/admin/connections/${encodeURIComponent(id)}`;
  const slot = statusSlot();
  const details = h("div");
  const revisions = h("div");
  const show = () => {
    void attempt(slot, async () => {
      const connection = await api.get(path);
      render(
        details,
        fieldsList([
          ["Id", h("code", {}, connection.id)],
          ["Name", connection.name],
          ["Status", badge(connection.status)],
          ["Partner", h("code", {}, connection.partnerId)],
          ["Active profile", profileSummary(connection.activeProfileRevision)],
          ["Uploads", link(`#/uploads?connectionId=${connection.id}`, "Uploads of this connection")],
        ]),
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
                            show();
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
    details,
    h("h2", {}, "Profile revisions"),
    can("admin.connections", "createProfileRevision")
      ? formPanel("New profile revision", profileControls(), "Create revision", async (data) => {
          await api.post(`${path}/profile-revisions`, profileFrom(data));
          show();
        })
      : null,
    revisions,
  );
}
