import { InvalidArgumentError, type Command } from "commander";
import type { Connection, Partner, ProfileInput, ProfileRevision } from "../sdk/admin-collections.js";
import {
  jsonOption,
  partnerFilter,
  registerGet,
  registerItemAction,
  registerList,
  renderFields,
} from "./collection.js";
import { collectionDeadlineBody, parseCollectionDeadline, parseWhole } from "./options.js";
import type { Runtime } from "./runtime.js";

/** `5412345000013:14` → `{id, qualifier}` (the qualifier is optional). */
const parseIdentification = (value: string): { id: string; qualifier?: string } => {
  const [id = "", qualifier, ...rest] = value.split(":");
  if (id === "" || rest.length > 0 || qualifier === "") {
    throw new InvalidArgumentError("an identification, optionally with its qualifier: ID or ID:QUALIFIER");
  }
  return qualifier === undefined ? { id } : { id, qualifier };
};

const identification = (value: { id: string; qualifier?: string | undefined }) =>
  value.qualifier === undefined ? value.id : `${value.id}:${value.qualifier}`;

interface ProfileOptions {
  theirId?: { id: string; qualifier?: string };
  ourId?: { id: string; qualifier?: string };
  directory?: string;
  syntaxVersion?: number;
  syntaxIdentifier?: string;
  contrl?: string;
  aperak?: string;
  ordrsp?: string;
  orderValidation?: string;
  duplicateWindowDays?: number;
}

/** The options of a trading profile; unset ones keep `base`'s values (or the server's defaults). */
function profileOptions(command: Command): Command {
  return command
    .option(
      "--their-id <id[:qualifier]>",
      "the partner's interchange identification (UNB sender)",
      parseIdentification,
    )
    .option(
      "--our-id <id[:qualifier]>",
      "our interchange identification (UNB recipient)",
      parseIdentification,
    )
    .option("--directory <directory>", "EDIFACT directory: D96A or D25A")
    .option("--syntax-version <n>", "syntax version: 3 or 4", parseWhole("--syntax-version", 3, 4))
    .option("--syntax-identifier <id>", "character set: UNOA … UNOY")
    .option("--contrl <when>", "CONTRL: always, on-request or on-error")
    .option("--aperak <when>", "APERAK: always, on-error or never")
    .option("--ordrsp <when>", "ORDRSP: auto or never")
    .option("--order-validation <mode>", "none or catalog")
    .option(
      "--duplicate-window-days <n>",
      "reject an interchange repeating one processed this many days before (0: off; server default 30)",
      parseWhole("--duplicate-window-days", 0, 3650),
    );
}

/** A profile as the options and a base (the active revision, as the server stored it) give it. */
type ProfileBase = Partial<Omit<ProfileRevision, "revision" | "active" | "createdAt">>;

function profileFrom(options: ProfileOptions, base: ProfileBase = {}): ProfileInput {
  const theirs = options.theirId ?? base.partnerIdentification;
  const ours = options.ourId ?? base.ownIdentification;
  if (theirs === undefined || ours === undefined) {
    throw new InvalidArgumentError("give --their-id and --our-id");
  }
  const responses = {
    ...base.responses,
    ...(options.contrl === undefined ? {} : { contrl: options.contrl }),
    ...(options.aperak === undefined ? {} : { aperak: options.aperak }),
    ...(options.ordrsp === undefined ? {} : { ordrsp: options.ordrsp }),
  };
  const orderValidation = options.orderValidation ?? base.orderValidation;
  const duplicateWindowDays = options.duplicateWindowDays ?? base.duplicateWindowDays;
  // The options are the user's words: the server judges them against the profile's allowed values
  // (a 400 naming the field), so they go out as the request's type without a second list of them.
  const profile = {
    directory: options.directory ?? base.directory ?? "D96A",
    syntaxVersion: options.syntaxVersion ?? base.syntaxVersion ?? 3,
    syntaxIdentifier: options.syntaxIdentifier ?? base.syntaxIdentifier ?? "UNOC",
    partnerIdentification: theirs,
    ownIdentification: ours,
    ...(Object.keys(responses).length > 0 ? { responses } : {}),
    ...(orderValidation === undefined ? {} : { orderValidation }),
    ...(duplicateWindowDays === undefined ? {} : { duplicateWindowDays }),
  };
  return profile as ProfileInput;
}

const renderPartner = (p: Partner) =>
  renderFields([
    ["ID", p.id],
    ["Name", p.name],
    ["Created", p.createdAt],
    ["Updated", p.updatedAt],
  ]);

const profileLine = (r: ProfileRevision) =>
  `${r.directory} syntax ${r.syntaxIdentifier}:${r.syntaxVersion}, ` +
  `theirs ${identification(r.partnerIdentification)}, ours ${identification(r.ownIdentification)}`;

const renderRevision = (r: ProfileRevision) =>
  renderFields([
    ["Revision", `${r.revision}${r.active ? " (active)" : ""}`],
    ["Directory", r.directory],
    ["Syntax", `${r.syntaxIdentifier}:${r.syntaxVersion}`],
    ["Their id", identification(r.partnerIdentification)],
    ["Our id", identification(r.ownIdentification)],
    ["Responses", `CONTRL ${r.responses.contrl}, APERAK ${r.responses.aperak}, ORDRSP ${r.responses.ordrsp}`],
    ["Orders", `validation ${r.orderValidation}`],
    [
      "Duplicates",
      r.duplicateWindowDays > 0 ? `rejected within ${r.duplicateWindowDays} days` : "not checked",
    ],
    ["Created", r.createdAt],
  ]);

const renderConnection = (c: Connection) =>
  renderFields([
    ["ID", c.id],
    ["Name", c.name],
    ["Partner", c.partnerId],
    ["Status", c.status],
    [
      "Deadline",
      c.collectionDeadlineSeconds === null
        ? "none (deliveries are never overdue)"
        : `${c.collectionDeadlineSeconds} s to collect a delivery`,
    ],
    ["Profile", `revision ${c.activeProfileRevision.revision}: ${profileLine(c.activeProfileRevision)}`],
    ["Created", c.createdAt],
    ["Updated", c.updatedAt],
  ]);

/** `hanse partners|connections|revisions …` through the published `admin.partners` and `admin.connections`. */
export function registerPartnersCommands(program: Command, rt: Runtime): void {
  const partners = rt.command(program, "partners").description("Trading partners (admin.partners)");
  registerList<Partner>(rt, partners, {
    description: "List the tenant's trading partners",
    empty: "No partners.",
    columns: [
      ["ID", (p) => p.id],
      ["CREATED", (p) => p.createdAt],
      ["NAME", (p) => p.name],
    ],
    fetch: (client, query) => client.admin.partners.list(query),
  });
  registerGet<Partner>(rt, partners, {
    description: "Show one partner",
    argument: "partner-id",
    fetch: (client, id) => client.admin.partners.get(id),
    render: renderPartner,
  });
  jsonOption(rt.command(partners, "create"))
    .description("Create a trading partner")
    .requiredOption("--name <name>", "the partner's name")
    .action(
      rt.action(async (options: { name: string; json?: boolean }) => {
        const partner = await (await rt.client()).admin.partners.create({ name: options.name });
        rt.emit(options.json, partner, () => `created partner ${partner.id}\n${renderPartner(partner)}`);
      }),
    );
  jsonOption(rt.command(partners, "rename"))
    .description("Rename a trading partner")
    .argument("<partner-id>", "the partner-id")
    .requiredOption("--name <name>", "the new name")
    .action(
      rt.action(async (id: string, options: { name: string; json?: boolean }) => {
        const partner = await (await rt.client()).admin.partners.rename(id, options.name);
        rt.emit(options.json, partner, () => renderPartner(partner));
      }),
    );

  const connections = rt
    .command(program, "connections")
    .description("A partner's connections and their trading profile (admin.connections)");
  registerList<Connection>(rt, connections, {
    description: "List the tenant's connections",
    empty: "No connections.",
    filters: [partnerFilter("connections")],
    columns: [
      ["ID", (c) => c.id],
      ["NAME", (c) => c.name],
      ["PARTNER", (c) => c.partnerId],
      ["STATUS", (c) => c.status],
      ["REVISION", (c) => String(c.activeProfileRevision.revision)],
      ["PROFILE", (c) => profileLine(c.activeProfileRevision)],
    ],
    fetch: (client, query) => client.admin.connections.list(query),
  });
  registerGet<Connection>(rt, connections, {
    description: "Show one connection and its active profile",
    argument: "connection-id",
    fetch: (client, id) => client.admin.connections.get(id),
    render: renderConnection,
  });
  jsonOption(profileOptions(rt.command(connections, "create")))
    .description("Create a connection of a partner with its first profile revision")
    .requiredOption("--partner <partner-id>", "the partner")
    .option("--name <name>", "what people call it (1–200 characters; default: the partner's name)")
    .option("--suspended", "create it suspended (uploads refused until `connections resume`)")
    .option(
      "--collection-deadline <seconds>",
      "seconds a delivery may wait unacknowledged before it is overdue (60–2592000, or none; default 86400)",
      parseCollectionDeadline,
    )
    .action(
      rt.action(
        async (
          options: ProfileOptions & {
            partner: string;
            name?: string;
            suspended?: boolean;
            collectionDeadline?: number | "none";
            json?: boolean;
          },
        ) => {
          const connection = await (
            await rt.client()
          ).admin.connections.create({
            partnerId: options.partner,
            ...(options.name === undefined ? {} : { name: options.name }),
            profile: profileFrom(options),
            ...(options.suspended ? { status: "suspended" as const } : {}),
            ...collectionDeadlineBody(options.collectionDeadline),
          });
          rt.emit(
            options.json,
            connection,
            () => `created connection ${connection.id}\n${renderConnection(connection)}`,
          );
        },
      ),
    );
  for (const [name, status] of [
    ["suspend", "suspended"],
    ["resume", "active"],
  ] as const) {
    registerItemAction<Connection>(rt, connections, {
      name,
      description:
        status === "active" ? "Accept uploads on a connection again" : "Refuse uploads on a connection",
      argument: "connection-id",
      run: (client, id) => client.admin.connections.setStatus(id, status),
      render: (c) => `connection ${c.id} is ${c.status}`,
    });
  }

  jsonOption(rt.command(connections, "rename"))
    .description("Give a connection another name (1–200 characters)")
    .argument("<connection-id>", "the connection")
    .argument("<name>", "its new name")
    .action(
      rt.action(async (id: string, name: string, options: { json?: boolean }) => {
        const connection = await (await rt.client()).admin.connections.rename(id, name);
        rt.emit(
          options.json,
          connection,
          () => `connection ${connection.id} is now named ${connection.name}`,
        );
      }),
    );

  jsonOption(rt.command(connections, "update"))
    .description("Change a connection's name or collection deadline")
    .argument("<connection-id>", "the connection")
    .option("--name <name>", "its new name (1–200 characters)")
    .option(
      "--collection-deadline <seconds>",
      "seconds a delivery may wait unacknowledged before it is overdue (60–2592000), or none",
      parseCollectionDeadline,
    )
    .action(
      rt.action(
        async (
          id: string,
          options: { name?: string; collectionDeadline?: number | "none"; json?: boolean },
        ) => {
          const changes = {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...collectionDeadlineBody(options.collectionDeadline),
          };
          if (Object.keys(changes).length === 0) {
            throw new InvalidArgumentError("give --name or --collection-deadline");
          }
          const connection = await (await rt.client()).admin.connections.update(id, changes);
          rt.emit(
            options.json,
            connection,
            () => `updated connection ${connection.id}\n${renderConnection(connection)}`,
          );
        },
      ),
    );

  registerRevisionsCommands(program, rt);
}

function registerRevisionsCommands(program: Command, rt: Runtime): void {
  const revisions = rt
    .command(program, "revisions")
    .description("Profile revisions of a connection: create one, then activate it");
  const revisionNumber = parseWhole("revision", 1, 1_000_000);
  registerList<ProfileRevision>(rt, revisions, {
    description: "List a connection's profile revisions",
    argument: { name: "connection-id", description: "the connection" },
    empty: "No profile revisions.",
    columns: [
      ["REVISION", (r) => String(r.revision)],
      ["ACTIVE", (r) => (r.active ? "yes" : "")],
      ["CREATED", (r) => r.createdAt],
      ["PROFILE", profileLine],
    ],
    fetch: (client, query, connectionId) => client.admin.revisions.list(connectionId ?? "", query),
  });
  jsonOption(rt.command(revisions, "get"))
    .alias("show")
    .description("Show one profile revision")
    .argument("<connection-id>", "the connection")
    .argument("<revision>", "the revision number", revisionNumber)
    .action(
      rt.action(async (connectionId: string, revision: number, options: { json?: boolean }) => {
        const found = await (await rt.client()).admin.revisions.get(connectionId, revision);
        rt.emit(options.json, found, () => renderRevision(found));
      }),
    );
  jsonOption(profileOptions(rt.command(revisions, "create")))
    .description("Create a revision (inactive): the active profile with the options given changed")
    .argument("<connection-id>", "the connection")
    .action(
      rt.action(async (connectionId: string, options: ProfileOptions & { json?: boolean }) => {
        const client = await rt.client();
        const { activeProfileRevision } = await client.admin.connections.get(connectionId);
        const created = await client.admin.revisions.create(
          connectionId,
          profileFrom(options, activeProfileRevision),
        );
        rt.emit(
          options.json,
          created,
          () =>
            `created revision ${created.revision} of connection ${connectionId} (not active yet: ` +
            `hanse revisions activate ${connectionId} ${created.revision})\n${renderRevision(created)}`,
        );
      }),
    );
  jsonOption(rt.command(revisions, "activate"))
    .description("Make a revision the connection's active profile (uploads from now on use it)")
    .argument("<connection-id>", "the connection")
    .argument("<revision>", "the revision number", revisionNumber)
    .action(
      rt.action(async (connectionId: string, revision: number, options: { json?: boolean }) => {
        const active = await (await rt.client()).admin.revisions.activate(connectionId, revision);
        rt.emit(
          options.json,
          active,
          () => `revision ${active.revision} of connection ${connectionId} is active`,
        );
      }),
    );
}
