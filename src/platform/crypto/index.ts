export * from "./ids.js";
export * from "./secrets.js";
