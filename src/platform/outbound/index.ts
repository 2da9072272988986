export * from "./target.js";
export * from "./webhook-signing.js";
export * from "./client.js";
export * from "./guard-report.js";
