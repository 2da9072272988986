import type { Static } from "@sinclair/typebox";
import { actorOf, anonymousActor } from "../../../platform/audit/index.js";
import type { Principal, RequestOrigin } from "../../../platform/auth/index.js";
import {
  digestsEqual,
  openSealedSecret,
  sealSecret,
  unusablePasswordHash,
  type SealingKeys,
} from "../../../platform/crypto/index.js";
import type { Database } from "../../../platform/db/database.js";
import { isUniqueViolation } from "../../../platform/db/errors.js";
import { AppError } from "../../../platform/errors/app-error.js";
import type { OutboundClient } from "../../../platform/outbound/index.js";
import { hashSecret, newSsoState, ssoStateIdOf } from "../credential-format.js";
import * as tenants from "../credentials.repository.js";
import { identityAudit } from "../identity.audit.js";
import type { IdentityDeps } from "../identity.deps.js";
import type { IdentityTables, SsoSettingsTable } from "../identity.tables.js";
import { openSession, type OpenedSession } from "../sessions/index.js";
import * as users from "../users/index.js";
import {
  authorizationUrl,
  discoverIssuer,
  newAuthorizationSecrets,
  OidcError,
  readUserinfo,
  redeemCode,
  verifyIdToken,
} from "./oidc-client.js";
import * as repo from "./sso.repository.js";
import type { SsoSettingsBody, SsoSettingsItem } from "./sso.schemas.js";

export interface SsoDeps extends IdentityDeps {
  /** The client for the issuers' endpoints (their own guard: HANSE_SSO_ALLOW_INSECURE). */
  ssoOutbound: OutboundClient;
  /** HANSE_SSO_ALLOW_INSECURE=1: http issuers and endpoints allowed (testing only). */
  ssoAllowInsecure: boolean;
  /** HANSE_PUBLIC_URL: the base of the redirect URI. */
  publicUrl: string;
  /** Seals the client secrets at rest. */
  ssoSealingKey: () => Promise<SealingKeys>;
}

/** rules/contract §7: a sign-in under way can be finished for 10 minutes. */
export const ssoStateTtlSeconds = 600;
export const ssoCallbackPath = "/api/v1/auth/sso/callback";
const defaultReturnTo = "/console/";

type SsoSettingsView = Static<typeof SsoSettingsItem>;

const toView = (row: SsoSettingsTable): SsoSettingsView => ({
  issuer: row.issuer,
  clientId: row.client_id,
  autoCreate:
    row.auto_create_role && row.auto_create_domains
      ? { role: row.auto_create_role, emailDomains: row.auto_create_domains }
      : null,
  updatedAt: row.updated_at.toISOString(),
});

const notConfigured = () => new AppError("ERR_NOT_FOUND", "Single sign-on is not set up for this tenant.");
const badIssuer = (message: string) =>
  new AppError("ERR_VALIDATION", `The issuer cannot be used: ${message}.`, {
    errors: [{ pointer: "/issuer", message }],
  });
/** Every failure of a callback is this one answer; the reason goes to the log only. */
const refused = () => new AppError("ERR_UNAUTHENTICATED", "The single sign-on failed; sign in again.");

/** A path on Hanse (rules/contract §7), else 400 at /query/returnTo: never another origin. */
export function returnPath(raw: string | undefined, publicUrl: string): string {
  const value = raw ?? defaultReturnTo;
  const invalid = () =>
    new AppError("ERR_VALIDATION", "returnTo must be a path on this service.", {
      errors: [{ pointer: "/query/returnTo", message: "must be a path on this service, starting with /" }],
    });
  // `//host` and `/\host` are other origins to a browser; control characters are never in a path.
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith("/") || value.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(value))
    throw invalid();
  const base = new URL(publicUrl);
  const url = new URL(value, base);
  if (url.origin !== base.origin) throw invalid();
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The e-mail's domain is one of `domains` (exactly, without regard to case). */
const inDomains = (email: string, domains: readonly string[]): boolean => {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return email.includes("@") && domains.some((allowed) => allowed.toLowerCase() === domain);
};

/** Why a sign-in was refused, as its `session.failed` record says (`data.reason`). */
type SsoRefusal =
  | "state_used"
  | "state_expired"
  | "sso_unavailable"
  | "issuer_mismatch"
  | "id_token_refused"
  | "email_not_verified"
  | "user_not_active"
  | "unknown_email"
  | "user_created_meanwhile";

/** A refusal whose tenant (and user) is known: it is recorded as `session.failed`. */
interface KnownRefusal {
  tenantId: string;
  userId?: string;
  code: SsoRefusal;
}

/** Single sign-on with OpenID Connect (rules/contract §7): the tenant's settings and the sign-in itself. */
export function createSso(deps: SsoDeps, database: Database<IdentityTables>) {
  const { db } = database;
  const audit = identityAudit(deps);
  const ssoTarget = (tenantId: string) => ({ type: "sso_settings", id: tenantId });
  const redirectUri = `${deps.publicUrl}${ssoCallbackPath}`;

  /** 400 at /issuer unless the issuer's URL passes the outbound guard and its discovery document matches. */
  async function checkIssuer(issuer: string) {
    try {
      await deps.ssoOutbound.checkTarget(issuer);
    } catch (error) {
      throw badIssuer((error as Error).message);
    }
    try {
      return await discoverIssuer(deps.ssoOutbound, issuer, deps.ssoAllowInsecure);
    } catch (error) {
      if (error instanceof OidcError) throw badIssuer(error.message);
      throw error;
    }
  }

  return {
    async getSsoSettings(principal: Principal): Promise<SsoSettingsView> {
      const row = await repo.findSsoSettings(db, principal.tenant.id);
      if (!row) throw notConfigured();
      return toView(row);
    },

    /**
     * Creates or replaces the tenant's settings after reading the issuer's discovery document;
     * the client secret is sealed (platform/crypto) and never returned.
     */
    async saveSsoSettings(
      principal: Principal,
      body: Static<typeof SsoSettingsBody>,
    ): Promise<SsoSettingsView> {
      const metadata = await checkIssuer(body.issuer);
      const sealed = sealSecret(await deps.ssoSealingKey(), body.clientSecret);
      const now = deps.clock.now();
      const existing = await repo.findSsoSettings(db, principal.tenant.id);
      const row: SsoSettingsTable = {
        tenant_id: principal.tenant.id,
        issuer: metadata.issuer,
        client_id: body.clientId,
        client_secret: sealed,
        authorization_endpoint: metadata.authorizationEndpoint,
        token_endpoint: metadata.tokenEndpoint,
        jwks_uri: metadata.jwksUri,
        userinfo_endpoint: metadata.userinfoEndpoint,
        token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
        signing_algorithms: metadata.signingAlgorithms,
        auto_create_role: body.autoCreate?.role ?? null,
        auto_create_domains: body.autoCreate
          ? [...new Set(body.autoCreate.emailDomains.map((d) => d.toLowerCase()))]
          : null,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      // sso.updated names what changed, never a value; the secret counts as changed on every save.
      const changes = existing
        ? [
            ...(existing.issuer === row.issuer ? [] : ["issuer"]),
            ...(existing.client_id === row.client_id ? [] : ["clientId"]),
            "clientSecret",
            ...(existing.auto_create_role === row.auto_create_role &&
            JSON.stringify(existing.auto_create_domains) === JSON.stringify(row.auto_create_domains)
              ? []
              : ["autoCreate"]),
          ]
        : ["issuer", "clientId", "clientSecret", "autoCreate"];
      await database.transaction(async (trx) => {
        await repo.saveSsoSettings(trx, row);
        await audit.record(trx, row.tenant_id, actorOf(principal), "sso.updated", ssoTarget(row.tenant_id), {
          changes,
        });
      });
      return toView(row);
    },

    async deleteSsoSettings(principal: Principal): Promise<void> {
      const tenantId = principal.tenant.id;
      await database.transaction(async (trx) => {
        if (!(await repo.deleteSsoSettings(trx, tenantId))) throw notConfigured();
        await audit.record(trx, tenantId, actorOf(principal), "sso.updated", ssoTarget(tenantId), {
          data: { deleted: true },
        });
      });
    },

    /**
     * Starts a sign-in: a state (stored as a hash, used once, 10 minutes), a nonce and a PKCE
     * verifier are kept server-side, so any process can finish it; the answer is the issuer's
     * authorization URL. A tenant unknown, not active or without settings is 404.
     */
    async startSsoSignIn(tenantSlug: string, returnTo: string | undefined): Promise<string> {
      const path = returnPath(returnTo, deps.publicUrl);
      const tenant = await tenants.findTenantBySlug(db, tenantSlug);
      const settings = tenant?.status === "active" ? await repo.findSsoSettings(db, tenant.id) : undefined;
      if (!tenant || !settings) throw notConfigured();
      const id = deps.newId();
      const state = newSsoState(id);
      const secrets = newAuthorizationSecrets();
      const now = deps.clock.now();
      await repo.insertSsoState(
        db,
        {
          id,
          tenant_id: tenant.id,
          secret_hash: hashSecret(state),
          nonce: secrets.nonce,
          code_verifier: secrets.codeVerifier,
          return_to: path,
          created_at: now,
          expires_at: new Date(now.getTime() + ssoStateTtlSeconds * 1000),
          used_at: null,
        },
        new Date(now.getTime() - 24 * 3600 * 1000),
      );
      return authorizationUrl(
        { authorizationEndpoint: settings.authorization_endpoint },
        {
          clientId: settings.client_id,
          redirectUri,
          state,
          nonce: secrets.nonce,
          codeChallenge: secrets.codeChallenge,
        },
      );
    },

    /**
     * Finishes a sign-in (rules/contract §7): the state is used up first (whatever follows), the code
     * redeemed with the verifier and the client secret, the ID token validated (oidc-client.ts),
     * `email_verified` must be true, and the e-mail an active user's of the tenant, or of an
     * auto-created domain (the user is created with its role in the session's transaction).
     * Anything else is the same 401 and nothing is created; `why` receives the reason for the log.
     */
    async finishSsoSignIn(
      query: { code?: string | undefined; state?: string | undefined; iss?: string | undefined },
      why: (reason: string) => void,
      origin?: RequestOrigin,
    ): Promise<{ session: OpenedSession; returnTo: string }> {
      // rules/contract §7: a refused sign-in is `session.failed` in the tenant's trail once the tenant
      // is known (from a genuine state), naming the user when the e-mail address matched one.
      // Written after any transaction of the sign-in rolled back; never the code, a token or the
      // e-mail address, only a short reason.
      let failure: { tenantId: string; userId: string | null; reason: SsoRefusal } | undefined;
      const refuse = (reason: string, known?: KnownRefusal) => {
        why(reason);
        if (known) failure = { tenantId: known.tenantId, userId: known.userId ?? null, reason: known.code };
        return refused();
      };
      try {
        return await finish(query, refuse, origin);
      } catch (error) {
        if (failure) {
          await audit.record(
            db,
            failure.tenantId,
            anonymousActor(origin, failure.userId),
            "session.failed",
            null,
            {
              data: { method: "sso", reason: failure.reason },
            },
          );
        }
        throw error;
      }
    },
  };

  /** The callback itself (finishSsoSignIn): `refuse` names the tenant and user once they are known. */
  async function finish(
    query: { code?: string | undefined; state?: string | undefined; iss?: string | undefined },
    refuse: (reason: string, known?: KnownRefusal) => AppError,
    origin: RequestOrigin | undefined,
  ): Promise<{ session: OpenedSession; returnTo: string }> {
    const { code, state } = query;
    const id = state === undefined ? undefined : ssoStateIdOf(state);
    if (!code || !state || !id) throw refuse("the callback has no code or no well-formed state");
    const presented = hashSecret(state);
    const row = await database.transaction(async (trx) => {
      const now = deps.clock.now();
      const found = await repo.lockSsoState(trx, id);
      if (!found || !digestsEqual(Buffer.from(found.secret_hash), presented)) return "unknown" as const;
      if (found.used_at !== null) return { refused: "state_used", tenantId: found.tenant_id } as const;
      if (found.expires_at <= now) return { refused: "state_expired", tenantId: found.tenant_id } as const;
      await repo.useSsoState(trx, id, now);
      return found;
    });
    // A state that does not match names no tenant that could be trusted: no record.
    if (row === "unknown") throw refuse("the state is unknown");
    if ("refused" in row) {
      throw refuse(`the state is ${row.refused === "state_used" ? "used" : "expired"}`, {
        tenantId: row.tenantId,
        code: row.refused,
      });
    }
    const known = (reason: SsoRefusal, userId?: string): KnownRefusal => ({
      tenantId: row.tenant_id,
      code: reason,
      ...(userId === undefined ? {} : { userId }),
    });
    const tenant = await tenants.findTenant(db, row.tenant_id);
    const settings = await repo.findSsoSettings(db, row.tenant_id);
    if (tenant?.status !== "active" || !settings)
      throw refuse("the tenant has no single sign-on now", known("sso_unavailable"));
    // RFC 9207: an issuer that names itself in the answer must be this tenant's (a mix-up defence).
    if (query.iss !== undefined && query.iss !== settings.issuer)
      throw refuse("the answer names another issuer", known("issuer_mismatch"));
    let identity: { email: string; emailVerified: boolean; name: string | undefined };
    try {
      const clientSecret = openSealedSecret(
        await deps.ssoSealingKey(),
        settings.client_secret,
        "SSO client secret",
      );
      const { idToken, accessToken } = await redeemCode(
        deps.ssoOutbound,
        {
          tokenEndpoint: settings.token_endpoint,
          tokenEndpointAuthMethod: settings.token_endpoint_auth_method,
        },
        { clientId: settings.client_id, clientSecret, redirectUri },
        { code, codeVerifier: row.code_verifier },
      );
      const fromIdToken = await verifyIdToken(
        deps.ssoOutbound,
        {
          issuer: settings.issuer,
          jwksUri: settings.jwks_uri,
          signingAlgorithms: settings.signing_algorithms,
        },
        idToken,
        { clientId: settings.client_id, nonce: row.nonce, now: deps.clock.now() },
      );
      // Without `email` in the ID token, the e-mail claims come together from userinfo (its
      // email_verified is about its email), for the ID token's subject.
      identity =
        fromIdToken.email === undefined
          ? await readUserinfo(
              deps.ssoOutbound,
              { userinfoEndpoint: settings.userinfo_endpoint },
              accessToken,
              fromIdToken.subject,
            )
          : { ...fromIdToken, email: fromIdToken.email };
      identity.name = fromIdToken.name ?? identity.name;
    } catch (error) {
      if (error instanceof OidcError) throw refuse(error.message, known("id_token_refused"));
      throw error;
    }
    // An address the issuer did not verify names nobody: no user in the record.
    if (!identity.emailVerified)
      throw refuse("the e-mail address is not verified", known("email_not_verified"));
    const email = identity.email;
    try {
      const session = await database.transaction(async (trx) => {
        const now = deps.clock.now();
        const user = await users.findUserByEmail(trx, tenant.id, email);
        if (user) {
          if (user.status !== "active" || user.disabled_at)
            throw refuse("the user is not active", known("user_not_active", user.id));
          return openSession(deps, trx, user, tenant, now, { method: "sso", origin });
        }
        const role = settings.auto_create_role;
        if (!role || !settings.auto_create_domains || !inDomains(email, settings.auto_create_domains)) {
          throw refuse(
            "no user has the e-mail address and its domain is not created automatically",
            known("unknown_email"),
          );
        }
        const created = { id: deps.newId(), email, role };
        await users.insertUser(trx, {
          tenant_id: tenant.id,
          id: created.id,
          email,
          name: identity.name ?? email,
          // Signs in through the issuer; a password can be set later with a password reset.
          password_hash: unusablePasswordHash,
          scopes: [...users.scopesOfRole(role, tenant.type)],
          role,
          status: "active",
          created_at: now,
          disabled_at: null,
          last_sign_in_at: null,
          activated_at: now,
        });
        return openSession(deps, trx, created, tenant, now, { method: "sso", origin });
      });
      return { session, returnTo: row.return_to };
    } catch (error) {
      // Two first sign-ins of one new user at once: the other one created it.
      if (isUniqueViolation(error))
        throw refuse("the user was created meanwhile; sign in again", known("user_created_meanwhile"));
      throw error;
    }
  }
}
