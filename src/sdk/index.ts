/** The typed Hanse client. Imports only `protocol/` (DESIGN.md layering). */
export { createClient, type ClientOptions, type HanseClient } from "./client.js";
export {
  EntrypointMissingError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
  LocationMismatchError,
  WaitTimeoutError,
  type EntrypointMissingReason,
} from "./errors.js";
export { hasAction, isUsableKind, selectAction, selectEntry } from "./entrypoints.js";
export { retryAfterMs } from "./http.js";
export { makeDirectory } from "./local-files.js";
export {
  systemTenantsEntryId,
  type CreateOptions,
  type ProvisioningRead,
  type TenantsApi,
  type WaitOptions,
} from "./tenants.js";
export type {
  CreateTenantInput,
  CreateTenantResult,
  LoginInput,
  Page,
  ProvisioningState,
  ProvisioningStatus,
  Session,
  Tenant,
} from "./types.js";
export type { Discovery, Entrypoint, EntrypointAction, Whoami } from "../protocol/index.js";
