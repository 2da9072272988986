import type { PartnerScope, Scope, TenantType } from "../../protocol/scopes.js";

export type PrincipalKind = "user" | "access_token" | "api_key";

/** Who is calling, resolved from a credential on every request (tenant type read from the database). */
export interface Principal {
  kind: PrincipalKind;
  /** The user, access token or API key id. */
  id: string;
  name: string;
  credentialId: string;
  tenant: { id: string; slug: string; type: TenantType };
  scopes: ReadonlySet<Scope>;
  /** Partner API keys only. */
  partnerId?: string;
  /** Partner API keys only: the connections it may use; null means every connection of its partner. */
  connectionIds?: readonly string[] | null;
}

/**
 * A credential check carried out by a route's own statement, so that the request costs one round
 * trip instead of two (see `deferred` below). `sql` defines two CTEs: `credential`, the presented
 * credential's row with its tenant (no row when the id is unknown), and `authorized`, one row only
 * when that credential is valid, is of a kind the route admits (a session credential, or a partner
 * API key on partner routes), holds every required scope and — when a tenant was named — belongs
 * to it. The statement writes only from `authorized` and returns the `credential` row through
 * `returning`, an item of its final select list (LEFT JOINed so that the row always comes back).
 */
export interface StatementCredentialCheck extends CredentialCheck {
  readonly sql: string;
  /** The select-list item that returns the credential row; `principalOf` reads it. */
  readonly returning: string;
  /** Parameter values, numbered from the `first` the check was made for. */
  readonly parameters: readonly unknown[];
}

/** What every credential check decides from the credential row its statement returned. */
export interface CredentialCheck {
  /** The principal the returned row describes (null: unauthenticated), decided as `authenticateBearer` would. */
  principalOf(row: Readonly<Record<string, unknown>>): Principal | null;
}

/**
 * One item's credential check in a statement that serves many requests at once
 * (`Authenticator.rowsCheckSql`): the values of its input row, as JSON.
 */
export interface RowCredentialCheck extends CredentialCheck {
  readonly values: CredentialCheckValues;
  /**
   * The check over the rows of `input` (a relation with an integer `ord` and the columns of
   * `CredentialCheckValues`, typed: uuid, bytea, text[], timestamptz, text[], uuid): CTEs
   * `credential` (`ord` and the credential's row, none for an unknown id) and `authorized`
   * (`ord` and `tenant_id` of every row whose credential passes), and the select-list item
   * `returning` that returns the credential row of `credential`. The same for every item.
   */
  rowsSql(input: string): { sql: string; returning: string };
}

/** The columns `rowsCheckSql` reads from its input relation (besides `ord`), as JSON values. */
export interface CredentialCheckValues {
  /** The credential id the bearer names. */
  readonly credential_id: string;
  /** SHA-256 of the presented secret, hex. */
  readonly presented: string;
  /** Credential kinds the route admits for this bearer, a text[] literal. */
  readonly kinds: string;
  /** ISO time the expiry is judged at. */
  readonly now: string;
  /** Scopes the caller must hold, a text[] literal. */
  readonly scopes: string;
  /** The tenant the credential must belong to; null: any (the statement ties it itself). */
  readonly tenant_id: string | null;
}

/** Resolves a bearer credential to a principal; null when unknown, revoked, expired or wrong. */
export interface Authenticator {
  authenticateBearer(token: string): Promise<Principal | null>;
  /** The same decision as a check inside a route's statement, with parameters from `$first`. */
  statementCheck(
    token: string,
    requirement: {
      scopes: readonly Scope[];
      /** null: any tenant (the statement ties the credential to its resource itself). */
      tenantId: string | null;
      first: number;
      /** Admit a partner API key (partner routes) instead of a session credential. */
      partner?: boolean;
    },
  ): StatementCredentialCheck;
  /** The same decision for one item of a statement over many items (`rowsCheckSql`). */
  rowCheck(
    token: string,
    requirement: { scopes: readonly Scope[]; tenantId: string | null; partner?: boolean },
  ): RowCredentialCheck;
  /** The credential id a bearer token names, unverified (e.g. to look up its rate-limit bucket). */
  claimedCredentialId(token: string): string;
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
