/** Shapes of the system tenant resource (CONTRACT §2 and §3). */
export interface Tenant {
  id: string;
  name: string;
  slug: string;
  type: "system" | "customer";
  /** `suspended`: offboarded until resumed (every credential of it refused, its jobs waiting). */
  status: "provisioning" | "active" | "failed" | "suspended";
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

export type ProvisioningState = "pending" | "running" | "succeeded" | "failed";

export interface ProvisioningStatus {
  tenantId: string;
  state: ProvisioningState;
  terminal: boolean;
  steps: { name: string; state: ProvisioningState }[];
  error: { code: string; message: string } | null;
  startedAt: string | null;
  completedAt: string | null;
}

export interface CreateTenantInput {
  name: string;
  slug: string;
  admin?: { email: string; password: string; name?: string };
}

export interface CreateTenantResult {
  tenantId: string;
  status: string;
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

export interface Session {
  id: string;
  token: string;
  expiresAt: string;
  scopes: string[];
  createdAt: string;
}

export interface LoginInput {
  tenant: string;
  email: string;
  password: string;
}

export type TransitionRequestState = "pending" | "processing" | "succeeded" | "failed";

/** The status document at `statusUrl`. */
export interface TransitionRequestStatus {
  requestId: string;
  status: TransitionRequestState;
  entity: string;
  entityId: string;
  transition: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  result: { fromState: string; toState: string } | null;
  error: { code: string; message: string } | null;
}
