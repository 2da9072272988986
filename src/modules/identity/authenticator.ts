import type { Authenticator, Principal } from "../../platform/auth/index.js";
import type { Clock } from "../../platform/clock/clock.js";
import { digestsEqual } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import { hashSecret, parseBearer, type ParsedBearer } from "./credential-format.js";
import * as repo from "./credentials.repository.js";
import type { IdentityTables } from "./identity.tables.js";

/** How often a session's last use is written at most (and so how far behind it may be). */
const sessionUseResolutionMs = 60_000;

/** A text[] parameter as its literal, which both drivers pass through unchanged. */
const rowsSql = (input: string) => ({
  sql: repo.credentialRowsCheckSql(input),
  returning: repo.credentialJsonColumn,
  values: repo.credentialCheckValueColumns,
});

const textArray = (values: readonly string[]): string =>
  `{${values.map((v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`;

/**
 * The credential kinds a session route admits, by the kind the bearer's format names: a partner
 * key is never admitted, whatever its secret. Literals, built once (the check runs per request).
 */
const sessionKindsFor: Readonly<Record<ParsedBearer["kind"], string>> = {
  unknown: textArray(["session", "access_token"]),
  session: textArray(["session"]),
  access_token: textArray(["access_token"]),
  api_key: textArray([]),
};
/** The same for partner routes: only a bearer in the partner key format can be admitted. */
const partnerKindsFor: Readonly<Record<ParsedBearer["kind"], string>> = {
  unknown: textArray([]),
  session: textArray([]),
  access_token: textArray([]),
  api_key: textArray(["api_key"]),
};
/** A route's required scopes as a literal, once per route (its requirement is one array). */
const scopeLiterals = new WeakMap<readonly string[], string>();
const scopesLiteral = (scopes: readonly string[]): string => {
  let literal = scopeLiterals.get(scopes);
  if (literal === undefined) {
    literal = textArray(scopes);
    scopeLiterals.set(scopes, literal);
  }
  return literal;
};

/**
 * The bearer check of every authenticated request: by itself (`authenticateBearer`, one batched
 * lookup), or as a fragment of another part's statement (`rowCheck`: the accept statements of
 * uploads and transition requests check their credential in the same round trip).
 */
export function createAuthenticator(deps: {
  database: Database<IdentityTables>;
  clock: Clock;
  /** A session unused for longer is refused (HANSE_SESSION_IDLE_SECONDS). */
  sessionIdleSeconds: number;
}): Authenticator {
  const database = deps.database;
  const findCredentialWithTenant = repo.createCredentialLookup(database);
  const idleMs = deps.sessionIdleSeconds * 1000;
  /** Sessions whose use is being recorded by this process (one write in flight per session). */
  const touching = new Set<string>();
  /**
   * A session's use is recorded at most once a minute, after the request's own check and off its
   * path: nothing waits for the write, and a failed write is tried again at the session's next
   * use. The recorded time is therefore at most a minute behind the last use (docs/decisions.md).
   */
  const recordUse = (id: string, lastUsedAt: Date, now: Date): void => {
    if (now.getTime() - lastUsedAt.getTime() < sessionUseResolutionMs || touching.has(id)) return;
    touching.add(id);
    void repo
      .touchSession(database.db, id, now, new Date(now.getTime() - sessionUseResolutionMs))
      .catch(() => undefined)
      .finally(() => touching.delete(id));
  };
  /**
   * Every refusal looks the same (null): unknown id, wrong secret (compared in constant time on
   * the hashes), a bearer of another kind, revoked, expired, or a tenant whose provisioning failed
   * or that is suspended (rules/contract §7: refused as if unknown).
   */
  const principalOf = (
    parsed: ParsedBearer,
    presented: Buffer,
    row: repo.CredentialWithTenant | undefined,
    now: Date,
  ): Principal | null => {
    if (!row?.id || !digestsEqual(Buffer.from(row.secret_hash), presented)) return null;
    if (parsed.kind !== "unknown" && parsed.kind !== row.kind) return null;
    if (row.revoked_at || (row.expires_at && row.expires_at <= now)) return null;
    if (repo.refusedTenantStatuses.includes(row.tenant_status)) return null;
    if (row.kind === "session") {
      // A deactivated user's sessions end at once (rules/contract §7).
      if (row.user_status !== "active") return null;
      // Idle expiry: judged on the recorded last use, which may be up to a minute behind, so a
      // session is refused at the latest `idle` after its last use, never later.
      const lastUsedAt = row.last_used_at ?? now;
      if (lastUsedAt.getTime() < now.getTime() - idleMs) return null;
      recordUse(row.id, lastUsedAt, now);
    }
    const kind = row.kind === "session" ? "user" : row.kind;
    const principal: Principal = {
      kind,
      id: row.principal_id,
      name: row.name,
      credentialId: row.id,
      tenant: { id: row.tenant_id, slug: row.tenant_slug, type: row.tenant_type },
      scopes: new Set(row.scopes),
    };
    if (row.user_role) principal.role = row.user_role;
    if (row.kind === "api_key") {
      principal.partnerId = row.principal_id;
      principal.connectionIds = row.connection_ids;
    }
    return principal;
  };
  return {
    async authenticateBearer(token) {
      const parsed = parseBearer(token);
      const row = await findCredentialWithTenant(parsed.id);
      return principalOf(parsed, hashSecret(parsed.secret), row, deps.clock.now());
    },
    rowCheck(token, { scopes, tenantId, partner = false }) {
      const parsed = parseBearer(token);
      const presented = hashSecret(parsed.secret);
      const now = deps.clock.now();
      return {
        values: {
          credential_id: parsed.id,
          presented: presented.toString("hex"),
          kinds: (partner ? partnerKindsFor : sessionKindsFor)[parsed.kind],
          now: now.toISOString(),
          idle_since: new Date(now.getTime() - idleMs).toISOString(),
          scopes: scopesLiteral(scopes),
          tenant_id: tenantId,
        },
        principalOf: (row) => principalOf(parsed, presented, repo.credentialFromJson(row.credential), now),
        rowsSql,
      };
    },
    claimedCredentialId: (token) => parseBearer(token).id,
    hasPartnerKeyForm: (token) => parseBearer(token).kind === "api_key",
  };
}
