import type { RequestBody, ResponseBody } from "./api.js";

/** Shapes of the system tenant resource (rules/contract §2 and §3), from the generated API types. */
export type Tenant = ResponseBody<"getTenant">;

export interface Page<T> {
  items: T[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

export type ProvisioningStatus = ResponseBody<"getTenantProvisioning">;
export type ProvisioningState = ProvisioningStatus["state"];

export type CreateTenantInput = RequestBody<"createTenant">;

export interface CreateTenantResult {
  tenantId: string;
  status: ResponseBody<"createTenant", 202>["status"];
  /** The provisioning status URL, from the published create action. */
  statusHref: string;
  /** The verified `Location` (absolute URL). */
  location: string;
  /** Suggested wait before the first status read. */
  retryAfterMs: number;
  /** True when the server replayed an earlier answer for the same key. */
  replayed: boolean;
  idempotencyKey: string;
}

export type Session = ResponseBody<"createSession", 201>;

export type LoginInput = RequestBody<"createSession">;

/** The status document at `statusUrl`. */
export type TransitionRequestStatus = ResponseBody<"getTransitionRequest">;
export type TransitionRequestState = TransitionRequestStatus["status"];
