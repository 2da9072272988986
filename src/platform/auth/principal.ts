import type { PartnerScope, Scope, TenantType } from "@hanse/client/protocol";

export type PrincipalKind = "user" | "access_token" | "api_key";

/**
 * Where a request came from, for its audit records (rules/contract §7): its correlation id and the
 * client's address (the TCP peer, or the `X-Forwarded-For` client when the peer is one of the
 * proxies of HANSE_TRUST_PROXY). A plain value, so services record it without knowing Fastify.
 */
export interface RequestOrigin {
  correlationId: string;
  sourceAddress: string | null;
}

/** Who is calling, resolved from a credential on every request (tenant type read from the database). */
export interface Principal {
  kind: PrincipalKind;
  /** The user, access token or API key id. */
  id: string;
  name: string;
  credentialId: string;
  tenant: { id: string; slug: string; type: TenantType };
  scopes: ReadonlySet<Scope>;
  /** User sessions only: the user's current role (rules/contract §7). */
  role?: "owner" | "admin" | "viewer";
  /** Partner API keys only. */
  partnerId?: string;
  /** Partner API keys only: the connections it may use; null means every connection of its partner. */
  connectionIds?: readonly string[] | null;
  /** The request the principal was resolved for (set by the auth plugin). */
  origin?: RequestOrigin;
}

/**
 * One request's credential check in a statement that serves many requests at once
 * (`Authenticator.rowCheck`): the values of its input row, as JSON.
 */
export interface RowCredentialCheck {
  readonly values: CredentialCheckValues;
  /** The principal the returned row describes (null: unauthenticated), decided as `authenticateBearer` would. */
  principalOf(row: Readonly<Record<string, unknown>>): Principal | null;
  /**
   * The check over the rows of `input` (a relation with an integer `ord` and the columns of
   * `CredentialCheckValues`, typed: uuid, bytea, text[], timestamptz, timestamptz, text[], uuid): CTEs
   * `credential` (`ord` and the credential's row, none for an unknown id) and `authorized`
   * (`ord` and `tenant_id` of every row whose credential passes), and the select-list item
   * `returning` that returns the credential row of `credential`. `values` gives the statement
   * the values' part of its input: `types`, their column definitions for `json_to_recordset`,
   * and `select`, the select-list items that type them from a record named `i`. The same for
   * every item.
   */
  rowsSql(input: string): {
    sql: string;
    returning: string;
    values: { readonly types: string; readonly select: string };
  };
}

/** The columns `rowsSql` reads from its input relation (besides `ord`), as JSON values. */
export interface CredentialCheckValues {
  /** The credential id the bearer names. */
  readonly credential_id: string;
  /** SHA-256 of the presented secret, hex. */
  readonly presented: string;
  /** Credential kinds the route admits for this bearer, a text[] literal. */
  readonly kinds: string;
  /** ISO time the expiry is judged at. */
  readonly now: string;
  /** ISO time before which a session's last recorded use makes it idle (refused). */
  readonly idle_since: string;
  /** Scopes the caller must hold, a text[] literal. */
  readonly scopes: string;
  /** The tenant the credential must belong to; null: any (the statement ties it itself). */
  readonly tenant_id: string | null;
}

/** Resolves a bearer credential to a principal; null when unknown, revoked, expired or wrong. */
export interface Authenticator {
  authenticateBearer(token: string): Promise<Principal | null>;
  /**
   * The same decision made by a route's own statement, so that the request costs one round trip
   * instead of two (see `deferred` below), for one of the requests that statement serves: the
   * values of its input row and the SQL of the check (`RowCredentialCheck.rowsSql`). The
   * statement writes only for rows in `authorized` and returns the `credential` row of each.
   */
  rowCheck(
    token: string,
    requirement: { scopes: readonly Scope[]; tenantId: string | null; partner?: boolean },
  ): RowCredentialCheck;
  /** The credential id a bearer token names, unverified (e.g. to look up its rate-limit bucket). */
  claimedCredentialId(token: string): string;
  /**
   * Whether a bearer token has the partner API key's form `<apiKeyId>:<secret>`: its syntax only,
   * never whether such a key exists (a partner route's 401 says which of the two to fix).
   */
  hasPartnerKeyForm(token: string): boolean;
}

/** What a route requires; every route declares one (deny by default). */
export type AuthRequirement =
  | { kind: "public" }
  | {
      kind: "session";
      /** The caller must hold every one of these. */
      allScopes?: readonly Scope[];
      /** The caller must hold at least one of these. */
      anyScopes?: readonly Scope[];
      /** Only the system tenant; any other tenant gets 404. */
      systemTenant?: boolean;
      /**
       * The route's own statement checks the credential (`deferredCredential`), saving a round
       * trip on a hot write. A request without a bearer token is still refused before its body
       * is read; any error answer authenticates first, so 401/403 keep their precedence.
       */
      deferred?: boolean;
    }
  | {
      /** A signed entitlement service request (rules/contract §5); its body is taken as raw bytes. */
      kind: "service";
    }
  | {
      kind: "partner";
      scope: PartnerScope;
      /**
       * A request that declares a body of at most this many bytes (`Content-Length`) has its key
       * checked by the route's own statement (`deferredCredential`), as `deferred` above.
       */
      deferredUpTo?: number;
    };

export const hasAnyScope = (principal: Principal, scopes: readonly Scope[]): boolean =>
  scopes.some((scope) => principal.scopes.has(scope));

export const hasAllScopes = (principal: Principal, scopes: readonly Scope[]): boolean =>
  scopes.every((scope) => principal.scopes.has(scope));

/** A separately deployed service, identified by a signed request (rules/contract §5). */
export interface ServicePrincipal {
  /** The credential id as issued (`hanse_sc_…`). */
  credentialId: string;
  bindingId: string;
  tenantId: string;
  appId: string;
  audience: string;
  requiredCapabilities: readonly string[];
  /** The request the service signed (set by the auth plugin). */
  origin?: RequestOrigin;
}

/** What a signed request presents: the method, the request target as sent, its headers and body. */
export interface SignedRequest {
  method: string;
  target: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

/** Verifies signed service requests; throws the `ERR_SERVICE_AUTH_*` AppError that refuses one. */
export interface ServiceAuthenticator {
  /** Header presence and formats only (before the body is read). */
  checkHeaders(headers: SignedRequest["headers"]): void;
  verify(request: SignedRequest): Promise<ServicePrincipal>;
}
