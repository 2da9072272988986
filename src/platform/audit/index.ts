export * from "./audit.js";
