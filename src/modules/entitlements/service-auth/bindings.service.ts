import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import type { Config } from "../../../config/index.js";
import { serviceCredentialId } from "@hanse/client/protocol";
import { actorOf, recordAudit } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { isUuid, sealSecret, type SealingKeys } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { readCreationPage, type PageRequest } from "../../../platform/http/cursor.js";
import type { ModuleDeps } from "../../module.js";
import * as bindings from "./bindings.repository.js";
import { findApp } from "../entitlements.repository.js";
import { checkCapabilitiesOfApp } from "../app-capabilities.js";
import type { EntitlementTables, ServiceBindingsTable } from "../entitlements.tables.js";

type Deps = Pick<ModuleDeps, "database" | "clock" | "newId" | "cursors"> & {
  config: Pick<Config, "HANSE_CREDENTIAL_OVERLAP_SECONDS">;
  sealingKey: () => Promise<SealingKeys>;
  /**
   * In the revocation's transaction: stops the binding's webhook subscriptions (the webhooks part
   * writes its tables; the module's index.ts wires this to it).
   */
  onRevoke: (
    trx: Transaction<EntitlementTables>,
    tenantId: string,
    bindingId: string,
    at: Date,
  ) => Promise<void>;
};

/** `hanse_ss_<43 base64url>`: 256 bits; the HMAC key is the UTF-8 of this whole string. */
const newServiceSecret = (): string => `hanse_ss_${randomBytes(32).toString("base64url")}`;

const toBinding = (row: ServiceBindingsTable, credentialUuid: string) => ({
  id: row.id,
  appId: row.app_id,
  audience: row.audience,
  requiredCapabilities: row.required_capabilities,
  credentialId: serviceCredentialId(credentialUuid),
  status: row.revoked_at ? ("revoked" as const) : ("active" as const),
  revokedAt: row.revoked_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

const noSuchBinding = () => new AppError("ERR_NOT_FOUND", "No such service binding.");

/** Service bindings, their credentials and webhook subscriptions (rules/contract §2a, §5). */
export function createBindingsService(deps: Deps) {
  const database = deps.database.as<EntitlementTables>();
  const db = database.db;

  async function issueCredential(
    trx: Parameters<Parameters<typeof database.transaction>[0]>[0],
    principal: Principal,
    binding: { tenant_id: string; id: string },
    type: "service_binding.created" | "service_binding.rotated",
    extra: Record<string, string | null>,
  ) {
    const secret = newServiceSecret();
    const now = deps.clock.now();
    const id = deps.newId();
    await bindings.insertCredential(trx, {
      id,
      tenant_id: binding.tenant_id,
      binding_id: binding.id,
      secret: sealSecret(await deps.sealingKey(), secret),
      created_at: now,
      expires_at: null,
    });
    await recordAudit(trx, {
      tenantId: binding.tenant_id,
      id: deps.newId(),
      type,
      occurredAt: now,
      actor: actorOf(principal),
      targetType: "service_binding",
      targetId: binding.id,
      data: { ...extra, credentialId: serviceCredentialId(id) },
    });
    return { id, secret };
  }

  return {
    async createBinding(
      principal: Principal,
      body: { appId: string; audience: string; requiredCapabilities: string[] },
    ) {
      const tenantId = principal.tenant.id;
      const app = await findApp(db, tenantId, body.appId);
      if (!app) {
        throw new AppError("ERR_VALIDATION", "The tenant has no app with this id.", {
          errors: [{ pointer: "/appId", message: "no such app" }],
        });
      }
      checkCapabilitiesOfApp(app, body.requiredCapabilities, "/requiredCapabilities");
      const row = {
        tenant_id: tenantId,
        id: deps.newId(),
        app_id: body.appId,
        audience: body.audience,
        required_capabilities: body.requiredCapabilities,
        created_at: deps.clock.now(),
        revoked_at: null,
      };
      const credential = await database.transaction(async (trx) => {
        await bindings.insertBinding(trx, row);
        // One record: the binding and its first credential (its id, never its secret).
        return issueCredential(trx, principal, row, "service_binding.created", { appId: row.app_id });
      });
      return { ...toBinding(row, credential.id), secret: credential.secret };
    },

    /**
     * Issues a new credential; the binding's earlier ones stay valid for the overlap (rules/contract §5:
     * HANSE_CREDENTIAL_OVERLAP_SECONDS), so services can roll the new secret out without downtime.
     */
    async rotateCredential(principal: Principal, bindingId: string) {
      const tenantId = principal.tenant.id;
      if (!isUuid(bindingId)) throw noSuchBinding();
      return database.transaction(async (trx) => {
        const binding = await bindings.lockBinding(trx, tenantId, bindingId.toLowerCase());
        if (!binding) throw noSuchBinding();
        if (binding.revoked_at) throw new AppError("ERR_CONFLICT", "The service binding is revoked.");
        const previous = await bindings.currentCredential(trx, tenantId, binding.id);
        const until = new Date(
          deps.clock.now().getTime() + deps.config.HANSE_CREDENTIAL_OVERLAP_SECONDS * 1000,
        );
        await bindings.expireCredentials(trx, tenantId, binding.id, until);
        const credential = await issueCredential(trx, principal, binding, "service_binding.rotated", {
          previousCredentialId: previous ? serviceCredentialId(previous.id) : null,
        });
        return {
          bindingId: binding.id,
          credentialId: serviceCredentialId(credential.id),
          secret: credential.secret,
          previousCredentialId: previous ? serviceCredentialId(previous.id) : null,
          previousValidUntil: previous ? until.toISOString() : null,
        };
      });
    },

    /**
     * rules/contract §7, offboarding: every credential of the binding, the previous one of a rotation's
     * overlap included, is refused from the commit on (the lookup of each signed request reads the
     * binding's `revoked_at`; nothing caches it), and its webhook subscriptions stop (disabled, their
     * pending deliveries cancelled). Grants already issued stay valid until they expire. Revoking a
     * revoked binding answers it unchanged, without a second record.
     */
    async revokeBinding(principal: Principal, bindingId: string) {
      const tenantId = principal.tenant.id;
      if (!isUuid(bindingId)) throw noSuchBinding();
      return database.transaction(async (trx) => {
        const binding = await bindings.lockBinding(trx, tenantId, bindingId.toLowerCase());
        if (!binding) throw noSuchBinding();
        const credential = await bindings.currentCredential(trx, tenantId, binding.id);
        const credentialId = credential?.id ?? "";
        if (binding.revoked_at) return toBinding(binding, credentialId);
        const now = deps.clock.now();
        await bindings.revokeBinding(trx, tenantId, binding.id, now);
        await deps.onRevoke(trx, tenantId, binding.id, now);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "service_binding.revoked",
          occurredAt: now,
          actor: actorOf(principal),
          targetType: "service_binding",
          targetId: binding.id,
          data: { bindingId: binding.id },
        });
        return toBinding({ ...binding, revoked_at: now }, credentialId);
      });
    },

    async getBinding(principal: Principal, id: string) {
      const row = isUuid(id)
        ? await bindings.findBindingWithCredential(db, principal.tenant.id, id.toLowerCase())
        : undefined;
      if (!row) throw noSuchBinding();
      return toBinding(row, row.credential_id);
    },

    async listBindings(principal: Principal, page: PageRequest) {
      const tenantId = principal.tenant.id;
      return readCreationPage(
        deps.cursors,
        `admin.serviceBindings:${tenantId}`,
        page,
        (after, order) => bindings.listBindings(db, tenantId, page.limit, after, order),
        (row) => toBinding(row, row.credential_id),
      );
    },
  };
}

export type BindingsService = ReturnType<typeof createBindingsService>;
