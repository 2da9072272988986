export { loadConfig, ConfigError } from "./load-config.js";
export { ConfigSchema, type Config } from "./config.schema.js";
