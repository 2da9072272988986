import { Value } from "@sinclair/typebox/value";
import { ConfigSchema, type Config, type RawConfig } from "./config.schema.js";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const keys = Object.keys(ConfigSchema.properties);

/**
 * Pure: reads only the given environment, reports every invalid variable by name at once.
 * Values are never echoed, since some of them are secrets.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const input: Record<string, unknown> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, input);
  const converted = Value.Convert(ConfigSchema, withDefaults);
  const problems = new Map<string, string>();
  for (const error of Value.Errors(ConfigSchema, converted)) {
    const key = error.path.replace(/^\//, "").split("/")[0] ?? error.path;
    if (!problems.has(key)) problems.set(key, `${key}: ${error.message}`);
  }
  if (problems.size > 0) throw new ConfigError([...problems.values()]);
  const raw = converted as RawConfig;
  const roles = raw.HANSE_ROLES.split(",");
  const host = raw.HOST.includes(":") ? `[${raw.HOST}]` : raw.HOST;
  return {
    ...raw,
    HANSE_ROLES: { api: roles.includes("api"), worker: roles.includes("worker") },
    HANSE_PUBLIC_URL: (raw.HANSE_PUBLIC_URL ?? `http://${host}:${raw.PORT}`).replace(/\/+$/, ""),
  };
}
