import type { Command } from "commander";
import type { CliIo } from "./cli-io.js";

/** Registers one module's commands on the program. */
export type Registration = (program: Command, io: CliIo) => void;

export interface TopLevelCommand {
  name: string;
  /** As its module registers it: `hanse --help` lists it from here without loading the module. */
  description: string;
  /** The module that registers it (and its siblings), imported only when the command runs. */
  load: () => Promise<Registration>;
}

const withRuntime = (
  register: (program: Command, rt: import("./runtime.js").Runtime) => void,
): Promise<Registration> =>
  import("./runtime.js").then(({ createRuntime }) => (program, io) => {
    register(program, createRuntime(io));
  });

const session = () => import("./session.command.js").then((m) => withRuntime(m.registerSessionCommands));
const users = () => import("./users.command.js").then((m) => withRuntime(m.registerUsersCommands));
const entitlements = () =>
  import("./entitlements.command.js").then((m) => withRuntime(m.registerEntitlementsCommands));
const partners = () => import("./partners.command.js").then((m) => withRuntime(m.registerPartnersCommands));
const keys = () => import("./keys.command.js").then((m) => withRuntime(m.registerKeysCommands));
const operations = () =>
  import("./operations.command.js").then((m) => withRuntime(m.registerOperationsCommands));

/**
 * The top-level commands of `hanse` in the order of `--help`, each with the module that registers
 * it: bin/hanse.js loads only the module of the command it runs (docs/benchmarks.md "CLI start").
 * packages/client/src/cli/command-table.test.ts checks this table against the modules.
 */
export const topLevelCommands: readonly TopLevelCommand[] = [
  {
    name: "login",
    description: "Log in with tenant, e-mail and password; stores the session token (mode 0600)",
    load: session,
  },
  {
    name: "logout",
    description: "Revoke the session on the server and forget the stored credentials",
    load: session,
  },
  {
    name: "whoami",
    description: "Show the principal, tenant and scopes of the current credentials",
    load: session,
  },
  {
    name: "sessions",
    description: "The signed-in user's own sessions (needs a user session, not an access token)",
    load: session,
  },
  {
    name: "users",
    description: "The tenant's users: invitations, roles, deactivation (admin.users)",
    load: users,
  },
  { name: "password", description: "Your own password (a user session)", load: users },
  {
    name: "sso",
    description: "The tenant's single sign-on with OpenID Connect (admin.sso)",
    load: () => import("./sso.command.js").then((m) => withRuntime(m.registerSsoCommands)),
  },
  {
    name: "discover",
    description: "Show public discovery and the entrypoints this session may use",
    load: () => import("./discover.command.js").then((m) => withRuntime(m.registerDiscoverCommand)),
  },
  {
    name: "tenants",
    description: "System tenant administration (published entrypoint system.tenants)",
    load: () => import("./tenants.command.js").then((m) => withRuntime(m.registerTenantsCommands)),
  },
  {
    name: "entitlements",
    description: "App entitlements: administration and the service interface (rules/interface C)",
    load: entitlements,
  },
  {
    name: "bindings",
    description: "Service bindings: an app, an audience, required capabilities and a credential",
    load: entitlements,
  },
  {
    name: "webhooks",
    description: "Webhook subscriptions of service bindings, and a check of your receiver",
    load: () => import("./webhooks.command.js").then((m) => withRuntime(m.registerWebhooksCommands)),
  },
  {
    name: "workflow",
    description: "Workflow transition requests (rules/interface D)",
    load: () => import("./workflow.command.js").then((m) => m.registerWorkflowCommands),
  },
  { name: "partners", description: "Trading partners (admin.partners)", load: partners },
  {
    name: "connections",
    description: "A partner's connections and their trading profile (admin.connections)",
    load: partners,
  },
  {
    name: "revisions",
    description: "Profile revisions of a connection: create one, then activate it",
    load: partners,
  },
  { name: "api-keys", description: "Partner API keys (admin.apiKeys)", load: keys },
  {
    name: "access-tokens",
    description: "The tenant's access tokens for scripts and services (admin.accessTokens)",
    load: keys,
  },
  {
    name: "uploads",
    description: "Received interchanges: status and why one was rejected (admin.exchangeUploads)",
    load: operations,
  },
  {
    name: "deliveries",
    description: "Outbound messages in partners' mailboxes (admin.exchangeDeliveries)",
    load: operations,
  },
  { name: "entities", description: "Workflow entities (admin.entities)", load: operations },
  {
    name: "transition-requests",
    description: "Workflow transition requests with status and outcome (admin.transitionRequests)",
    load: operations,
  },
  {
    name: "audit",
    description: "The tenant's audit trail: every administrative act and sign-in (admin.auditEvents)",
    load: () => import("./audit.command.js").then((m) => withRuntime(m.registerAuditCommands)),
  },
  {
    name: "partner",
    description: "partner exchange: upload interchanges, collect the mailbox",
    load: () =>
      import("./partner.command.js").then((m) => (program: Command, io: CliIo) => {
        m.registerPartnerCommands(program, io);
      }),
  },
  {
    name: "completion",
    description: "Print a shell completion script: source <(hanse completion bash) or … zsh",
    // The scripts list every command and option: the whole tree.
    load: () => import("./index.js").then((m) => m.registerCommands),
  },
];
