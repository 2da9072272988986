import { createAdminCollectionsApi, type AdminCollectionsApi } from "./admin-collections.js";
import type { Discovery, Entrypoint, EntrypointAction, EntrypointList, Whoami } from "../protocol/index.js";
import { createEntitlementsAdminApi, type EntitlementsAdminApi } from "./entitlements-admin.js";
import { selectAction, selectEntry } from "./entrypoints.js";
import { HanseProtocolError } from "./errors.js";
import { createTransport, type Transport } from "./http.js";
import { createTenantsApi, systemTenantsEntryId, type TenantsApi } from "./tenants.js";
import { authSessionsEntryId, createSessionsApi, type SessionsApi } from "./sessions.js";
import type { LoginInput, Session } from "./types.js";
import { createWebhooksAdminApi, type WebhooksAdminApi } from "./webhooks-admin.js";
import {
  createPasswordApi,
  createSsoApi,
  createUsersApi,
  type PasswordApi,
  type SsoApi,
  type UsersApi,
} from "./users.js";

export interface ClientOptions {
  /** Origin of the service, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A session token or access token. */
  token?: string | undefined;
  /** Time limit of one request (default 30 s). */
  fetchTimeoutMs?: number | undefined;
}

/** The well-known paths of rules/interface B; everything else is reached through published entrypoints. */
const paths = {
  discovery: "/api/v1/meta/discovery",
  publicEntrypoints: "/api/v1/meta/entrypoints",
  whoami: "/api/v1/profile/whoami",
  entrypoints: "/api/v1/profile/entrypoints",
} as const;

export interface HanseClient {
  readonly baseUrl: string;
  /** Whether requests carry a token. */
  readonly authenticated: boolean;
  /** A client for the same service with another token. */
  withToken(token: string): HanseClient;
  discovery(): Promise<Discovery>;
  publicEntrypoints(): Promise<Entrypoint[]>;
  /** Logs in through the published `auth.sessions` create action; use `withToken(session.token)` next. */
  login(input: LoginInput): Promise<Session>;
  /** Revokes the current session on the server (published action `auth.sessions` / `delete`). */
  logout(): Promise<void>;
  whoami(): Promise<Whoami>;
  /** The signed-in user's own sessions: list them, end one (published `auth.sessions` actions). */
  readonly sessions: SessionsApi;
  /** The signed-in user's own password (published `auth.password` action `change`). */
  readonly password: PasswordApi;
  /** The session's entrypoints; read once per client unless `refresh` is set. */
  entrypoints(options?: { refresh?: boolean }): Promise<Entrypoint[]>;
  /** The published entry, or EntrypointMissingError (a definitive denial). */
  findEntry(id: string): Promise<Entrypoint>;
  /** The published action, or EntrypointMissingError. */
  action(entryId: string, actionId: string): Promise<EntrypointAction>;
  readonly tenants: TenantsApi;
  /** Apps, entitlements and service bindings (published `admin.*` entries of the entitlement area). */
  readonly entitlements: EntitlementsAdminApi;
  /** Webhook subscriptions of service bindings (published `admin.webhookSubscriptions`). */
  readonly webhooks: WebhooksAdminApi;
  /** Partners, connections, revisions, API keys, audit, uploads, deliveries, entities, access tokens. */
  readonly admin: AdminCollectionsApi;
  /** The tenant's users: invitations, roles, deactivation, password resets (published `admin.users`). */
  readonly users: UsersApi;
  /** The tenant's single sign-on setting (published `admin.sso`). */
  readonly sso: SsoApi;
}

export function createClient(options: ClientOptions): HanseClient {
  const transport: Transport = createTransport(options);
  let cached: Promise<Entrypoint[]> | undefined;

  const entrypoints = (refresh = false): Promise<Entrypoint[]> => {
    if (refresh || cached === undefined) {
      const loading = transport
        .send<EntrypointList>({ method: "GET", href: paths.entrypoints })
        .then((answer) => listOf(answer.body));
      // A failed read is not cached.
      loading.catch(() => {
        if (cached === loading) cached = undefined;
      });
      cached = loading;
    }
    return cached;
  };

  const findEntry = async (id: string): Promise<Entrypoint> => selectEntry(await entrypoints(), id);

  const publicEntrypoints = async (): Promise<Entrypoint[]> => {
    const answer = await transport.send<EntrypointList>({
      method: "GET",
      href: paths.publicEntrypoints,
      anonymous: true,
    });
    return listOf(answer.body);
  };

  return {
    baseUrl: transport.baseUrl,
    authenticated: transport.authenticated,
    withToken: (token) => createClient({ ...options, token }),

    async discovery() {
      return (await transport.send<Discovery>({ method: "GET", href: paths.discovery, anonymous: true }))
        .body;
    },

    publicEntrypoints,

    async login(input) {
      const published = await publicEntrypoints();
      const action = selectAction(selectEntry(published, authSessionsEntryId), "create");
      const answer = await transport.send<Session>({
        method: action.method,
        href: action.href,
        body: { tenant: input.tenant, email: input.email, password: input.password },
        anonymous: true,
      });
      if (typeof answer.body.token !== "string")
        throw new HanseProtocolError("the login answer has no token");
      return answer.body;
    },

    async logout() {
      const published = await publicEntrypoints();
      const action = selectAction(selectEntry(published, authSessionsEntryId), "delete");
      await transport.send({ method: action.method, href: action.href });
    },

    async whoami() {
      return (await transport.send<Whoami>({ method: "GET", href: paths.whoami })).body;
    },

    sessions: createSessionsApi(transport, async (id) => selectEntry(await publicEntrypoints(), id)),
    password: createPasswordApi(transport, async (id) => selectEntry(await publicEntrypoints(), id)),
    entrypoints: (opts) => entrypoints(opts?.refresh ?? false),
    findEntry,
    action: async (entryId, actionId) => selectAction(await findEntry(entryId), actionId),
    tenants: createTenantsApi(transport, () => findEntry(systemTenantsEntryId)),
    entitlements: createEntitlementsAdminApi(transport, findEntry),
    webhooks: createWebhooksAdminApi(transport, findEntry),
    admin: createAdminCollectionsApi(transport, findEntry),
    users: createUsersApi(transport, findEntry),
    sso: createSsoApi(transport, findEntry),
  };
}

function listOf(body: EntrypointList | undefined): Entrypoint[] {
  if (!body || !Array.isArray(body.entrypoints)) {
    throw new HanseProtocolError("the entrypoint list has no `entrypoints` array");
  }
  return body.entrypoints;
}
