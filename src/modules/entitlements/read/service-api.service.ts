import { SignJWT } from "jose";
import type { Config } from "../../../config/index.js";
import { decideEntitlement, type Entitlement } from "@hanse/client/protocol";
import type { ServicePrincipal } from "../../../platform/auth/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import type { ModuleDeps } from "../../module.js";
import * as repo from "../entitlements.repository.js";
import * as feed from "./feed.repository.js";
import { checkActorId } from "../admin/index.js";
import type { EntitlementTables } from "../entitlements.tables.js";
import type { KeyRing } from "../grants/index.js";

type Deps = Pick<ModuleDeps, "database" | "clock" | "newId" | "cursors"> & {
  config: Pick<Config, "HANSE_PUBLIC_URL" | "HANSE_GRANT_TTL_SECONDS">;
  keys: KeyRing;
};

export const grantType = "entitlement-grant+jwt";

const cursorExpired = () =>
  new AppError(
    "ERR_APP_ENTITLEMENT_CURSOR_EXPIRED",
    "Changes after this sequence are no longer kept; discard the local projection and start with a new snapshot.",
  );

/** What a signed service reads (rules/interface C): introspection, snapshot, change feed, grants, JWKS. */
export function createServiceApi(deps: Deps) {
  const database = deps.database.as<EntitlementTables>();
  const db = database.db;

  /** The binding's app's stream; it exists as long as the binding's app does. */
  async function stateOf(service: ServicePrincipal) {
    const state = await repo.streamState(db, service.tenantId, service.appId);
    if (!state) throw new AppError("ERR_NOT_FOUND", "The binding's app does not exist.");
    return state;
  }

  return {
    async introspect(service: ServicePrincipal, actorId: string) {
      checkActorId(actorId);
      const now = deps.clock.now();
      const row = await repo.findEntitlementPrepared(database, service.tenantId, service.appId, actorId);
      const entitlement = row ? repo.toEntitlement(row) : null;
      const { entitled } = decideEntitlement(entitlement, service.requiredCapabilities, now);
      return {
        tenantId: service.tenantId,
        appId: service.appId,
        actorId,
        entitled,
        status: entitlement?.status ?? null,
        plan: entitlement?.plan ?? null,
        capabilities: entitlement?.capabilities ?? [],
        validFrom: entitlement?.validFrom ?? null,
        validUntil: entitlement?.validUntil ?? null,
        sequence: entitlement?.sequence ?? null,
        evaluatedAt: now.toISOString(),
      };
    },

    /**
     * A snapshot page as of `asOfSequence` (the first page takes the latest sequence); later pages
     * need the cursor and the same `asOfSequence`, and show that state whatever changed since.
     */
    async snapshot(
      service: ServicePrincipal,
      query: { limit?: number | undefined; cursor?: string | undefined; asOfSequence?: number | undefined },
    ) {
      const limit = query.limit ?? 100;
      const state = await stateOf(service);
      let asOf: number;
      let afterActor: string | undefined;
      if (query.cursor !== undefined) {
        if (query.asOfSequence === undefined) {
          throw new AppError("ERR_VALIDATION", "A snapshot page after the first needs its asOfSequence.", {
            errors: [{ pointer: "/query/asOfSequence", message: "required with cursor" }],
          });
        }
        asOf = query.asOfSequence;
        afterActor = deps.cursors.decode<string>(snapshotBinding(service, asOf), query.cursor);
      } else {
        asOf = query.asOfSequence ?? state.lastSequence;
        if (asOf > state.lastSequence) {
          throw new AppError("ERR_VALIDATION", "asOfSequence is beyond the latest sequence.", {
            errors: [{ pointer: "/query/asOfSequence", message: "beyond the latest sequence" }],
          });
        }
      }
      if (state.prunedThrough > asOf) throw cursorExpired();
      const rows = await feed.snapshotRows(db, service.tenantId, service.appId, asOf, afterActor, limit);
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const last = page.at(-1);
      // A change after asOf pruned while we read: the reconstruction may be incomplete.
      const after = await stateOf(service);
      if (after.prunedThrough > asOf) throw cursorExpired();
      return {
        asOfSequence: asOf,
        items: page.map((r) => r.entitlement).filter((e): e is Entitlement => e !== null),
        meta: {
          hasMore,
          nextCursor:
            hasMore && last ? deps.cursors.encode(snapshotBinding(service, asOf), last.actorId) : null,
        },
      };
    },

    /**
     * Changes after `afterSequence` in ascending order; 410 exactly when one of them was pruned.
     * The page is JSON text already (its changes written in their documented key order, see
     * `changesPageJson`): the route sends it as it is.
     */
    async changes(
      service: ServicePrincipal,
      query: { afterSequence: number; limit?: number | undefined },
    ): Promise<string> {
      const after = query.afterSequence;
      const page = await feed.changesPageJson(
        database,
        service.tenantId,
        service.appId,
        after,
        query.limit ?? 100,
      );
      if (!page) throw new AppError("ERR_NOT_FOUND", "The binding's app does not exist.");
      if (after > page.lastSequence) {
        throw new AppError("ERR_VALIDATION", "afterSequence is beyond the latest sequence.", {
          errors: [{ pointer: "/query/afterSequence", message: "beyond the latest sequence" }],
        });
      }
      if (page.prunedThrough > after) throw cursorExpired();
      // Sequences have no gaps: a first change later than after + 1 means it was pruned.
      if (
        (page.first !== null && page.first !== after + 1) ||
        (page.first === null && page.lastSequence > after)
      ) {
        throw cursorExpired();
      }
      const lastSequence = page.last ?? after;
      const latestSequence = Math.max(page.lastSequence, lastSequence);
      const meta = { hasMore: lastSequence < latestSequence, lastSequence, latestSequence };
      return `{"items":${page.items},"meta":${JSON.stringify(meta)}}`;
    },

    /** A short-lived Ed25519 grant bound to the calling binding; refused when not entitled. */
    async grant(service: ServicePrincipal, actorId: string) {
      checkActorId(actorId);
      const now = deps.clock.now();
      const row = await repo.findEntitlementPrepared(database, service.tenantId, service.appId, actorId);
      const entitlement: Entitlement | null = row ? repo.toEntitlement(row) : null;
      if (!entitlement || !decideEntitlement(entitlement, service.requiredCapabilities, now).entitled) {
        throw new AppError(
          "ERR_APP_ENTITLEMENT_NOT_ENTITLED",
          "The actor is not entitled to this app with the binding's required capabilities.",
        );
      }
      const key = await deps.keys.signingKey(database, service.tenantId);
      if (!key) throw new AppError("ERR_UNAVAILABLE", "The tenant has no signing key yet.");
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + deps.config.HANSE_GRANT_TTL_SECONDS;
      const grant = await new SignJWT({
        tenant: service.tenantId,
        app: service.appId,
        binding: service.bindingId,
        capabilities: entitlement.capabilities,
        seq: entitlement.sequence,
      })
        .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: grantType })
        .setIssuer(deps.config.HANSE_PUBLIC_URL)
        .setAudience(service.audience)
        .setSubject(actorId)
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(exp)
        .setJti(deps.newId())
        .sign(key.privateKey);
      return { grant, expiresAt: new Date(exp * 1000).toISOString(), keyId: key.kid };
    },

    async jwks() {
      return { keys: await deps.keys.publishedKeys(db) };
    },
  };
}

const snapshotBinding = (service: ServicePrincipal, asOf: number) =>
  `entitlements.snapshot:${service.tenantId}:${service.appId}:${asOf}`;

export type ServiceApi = ReturnType<typeof createServiceApi>;
