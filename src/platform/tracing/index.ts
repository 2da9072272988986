export * from "./trace-context.js";
export * from "./request-trace.js";
