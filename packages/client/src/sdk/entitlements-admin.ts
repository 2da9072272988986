import type { Entitlement, EntitlementStatus, Entrypoint } from "../protocol/index.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type PageQuery } from "./published-call.js";
import type { Page } from "./types.js";

/** The published admin entries of the entitlement area (CONTRACT §2a). */
export const entitlementAdminEntries = {
  apps: "admin.apps",
  entitlements: "admin.entitlements",
  bindings: "admin.serviceBindings",
} as const;

export interface App {
  id: string;
  name: string;
  capabilities: string[];
  createdAt: string;
}

export interface SetEntitlementInput {
  status: EntitlementStatus;
  plan: string;
  capabilities: string[];
  validFrom?: string;
  validUntil?: string | null;
}

export interface ServiceBinding {
  id: string;
  appId: string;
  audience: string;
  requiredCapabilities: string[];
  credentialId: string;
  /** `revoked`: every credential of the binding is refused and its webhook subscriptions stopped. */
  status: "active" | "revoked";
  revokedAt: string | null;
  createdAt: string;
}

/** A binding as created: the `secret` is shown only here. */
export type CreatedServiceBinding = ServiceBinding & { secret: string };

export interface RotatedCredential {
  bindingId: string;
  credentialId: string;
  /** Shown only here. */
  secret: string;
  previousCredentialId: string | null;
  previousValidUntil: string | null;
}

/** One change of an actor's entitlement, as its history lists it (newest first). */
export interface EntitlementHistoryEntry {
  sequence: number;
  eventId: string;
  /** The entitlement after the change. */
  entitlement: Entitlement | null;
  occurredAt: string;
  /** The principal that made the change (null: not recorded). */
  changedBy: string | null;
}

/** A page of an actor's history; changes up to `meta.prunedThrough` are no longer kept. */
export interface EntitlementHistoryPage {
  items: EntitlementHistoryEntry[];
  meta: Page<EntitlementHistoryEntry>["meta"] & { prunedThrough: number };
}

export interface EntitlementsAdminApi {
  createApp(input: { id: string; name: string; capabilities: string[] }): Promise<App>;
  listApps(query?: PageQuery): Promise<Page<App>>;
  getApp(appId: string): Promise<App>;
  setEntitlement(appId: string, actorId: string, input: SetEntitlementInput): Promise<Entitlement>;
  getEntitlement(appId: string, actorId: string): Promise<Entitlement>;
  listEntitlements(appId: string, query?: PageQuery): Promise<Page<Entitlement>>;
  listEntitlementHistory(appId: string, actorId: string, query?: PageQuery): Promise<EntitlementHistoryPage>;
  createBinding(input: {
    appId: string;
    audience: string;
    requiredCapabilities: string[];
  }): Promise<CreatedServiceBinding>;
  rotateBinding(bindingId: string): Promise<RotatedCredential>;
  /** Offboarding (CONTRACT §7): every credential of the binding refused from now on; idempotent. */
  revokeBinding(bindingId: string): Promise<ServiceBinding>;
}

/** Admin calls through the session's published entries only (spec B: no path is guessed). */
export function createEntitlementsAdminApi(
  transport: Transport,
  findEntry: (id: string) => Promise<Entrypoint>,
): EntitlementsAdminApi {
  const run = createPublishedCall(transport, findEntry);
  const e = entitlementAdminEntries;
  return {
    createApp: (input) => run(e.apps, "create", {}, { body: input }),
    listApps: (query = {}) => run(e.apps, "list", {}, { query }),
    getApp: (appId) => run(e.apps, "read", { id: appId }),
    setEntitlement: (appId, actorId, input) =>
      run(e.entitlements, "update", { appId, actorId }, { body: input }),
    getEntitlement: (appId, actorId) => run(e.entitlements, "read", { appId, actorId }),
    listEntitlements: (appId, query = {}) => run(e.entitlements, "list", { appId }, { query }),
    listEntitlementHistory: (appId, actorId, query = {}) =>
      run(e.entitlements, "history", { appId, actorId }, { query }),
    createBinding: (input) => run(e.bindings, "create", {}, { body: input }),
    rotateBinding: (bindingId) => run(e.bindings, "rotate", { id: bindingId }),
    revokeBinding: (bindingId) => run(e.bindings, "revoke", { id: bindingId }),
  };
}
