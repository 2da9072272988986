/** Who a separately deployed service is: its bindings, their credentials, and the signed-request check. */
export { findBinding, pruneNonces } from "./bindings.repository.js";
export { createBindingsService, type BindingsService } from "./bindings.service.js";
export { createServiceAuthenticator } from "./service-auth.js";
export { credentialSealedColumns } from "./bindings.repository.js";
