export * from "./target.js";
export * from "./webhook-signing.js";
export * from "./client.js";
