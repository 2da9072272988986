export * from "./ids.js";
export * from "./sealed-secrets.js";
export * from "./secrets.js";
export * from "./sealing-key.js";
export * from "./reseal.js";
