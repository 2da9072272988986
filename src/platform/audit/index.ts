export * from "./audit.js";
export * from "./audit-view.js";
export * from "./audit-chain.js";
export * from "./audit-retention.js";
