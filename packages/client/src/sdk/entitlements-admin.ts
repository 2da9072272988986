import type { Entitlement, Entrypoint } from "../protocol/index.js";
import type { RequestBody, ResponseBody } from "./api.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type PageQuery } from "./published-call.js";
import type { Page } from "./types.js";

/** The published admin entries of the entitlement area (rules/contract §2a). */
export const entitlementAdminEntries = {
  apps: "admin.apps",
  entitlements: "admin.entitlements",
  bindings: "admin.serviceBindings",
} as const;

export type App = ResponseBody<"getApp">;

export type SetEntitlementInput = RequestBody<"setEntitlement">;

export type ServiceBinding = ResponseBody<"getServiceBinding">;

/** A binding as created: the `secret` is shown only here. */
export type CreatedServiceBinding = ResponseBody<"createServiceBinding", 201>;

export type RotatedCredential = ResponseBody<"rotateServiceBindingCredential">;

/** One change of an actor's entitlement, as its history lists it (newest first). */
export type EntitlementHistoryEntry = EntitlementHistoryPage["items"][number];

/** A page of an actor's history; changes up to `meta.prunedThrough` are no longer kept. */
export type EntitlementHistoryPage = ResponseBody<"listEntitlementHistory">;

export interface EntitlementsAdminApi {
  createApp(input: RequestBody<"createApp">): Promise<App>;
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
  /** Offboarding (rules/contract §7): every credential of the binding refused from now on; idempotent. */
  revokeBinding(bindingId: string): Promise<ServiceBinding>;
}

/** Admin calls through the session's published entries only (rules/interface B: no path is guessed). */
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
