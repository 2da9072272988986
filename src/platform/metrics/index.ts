export * from "./metrics-registry.js";
export * from "./http-metrics.js";
export * from "./metrics-server.js";
