export * from "./error-codes.js";
export * from "./scopes.js";
export * from "./headers.js";
export * from "./entrypoints.js";
export * from "./service-signature.js";
export * from "./entitlement-decision.js";
export * from "./webhook-signature.js";
export * from "./outbound-target.js";
