import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "./config.schema.js";
import { ConfigError, loadConfig } from "./load-config.js";

describe("loadConfig", () => {
  it("applies the rules/contract §0 defaults to an empty environment", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.HOST).toBe("127.0.0.1");
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.HANSE_DATA_DIR).toBe("./data");
    expect(config.HANSE_ROLES).toEqual({ api: true, worker: true });
    expect(config.HANSE_PUBLIC_URL).toBe("http://127.0.0.1:8080");
    expect(config.HANSE_MAILBOX_LEASE_SECONDS).toBe(300);
    expect(config.HANSE_GRANT_TTL_SECONDS).toBe(300);
    expect(config.HANSE_FEED_RETENTION_SECONDS).toBe(604800);
  });

  it("converts numbers, splits roles and strips a trailing slash of HANSE_PUBLIC_URL", () => {
    const config = loadConfig({
      PORT: "9000",
      HANSE_ROLES: "worker",
      HANSE_PUBLIC_URL: "https://h.example.com/",
    });
    expect(config.PORT).toBe(9000);
    expect(config.HANSE_ROLES).toEqual({ api: false, worker: true });
    expect(config.HANSE_PUBLIC_URL).toBe("https://h.example.com");
  });

  it("reports every invalid variable by name at once, without echoing values", () => {
    const secret = "short-secret";
    let error: unknown;
    try {
      loadConfig({
        PORT: "eighty",
        HANSE_ROLES: "api,cron",
        HANSE_BOOTSTRAP_TOKEN: secret,
        DATABASE_URL: "mysql://x",
        HANSE_GRANT_TTL_SECONDS: "901",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const name of [
      "PORT",
      "HANSE_ROLES",
      "HANSE_BOOTSTRAP_TOKEN",
      "DATABASE_URL",
      "HANSE_GRANT_TTL_SECONDS",
    ]) {
      expect(problems).toContain(name);
    }
    expect((error as ConfigError).problems).toHaveLength(5);
    expect((error as ConfigError).message).not.toContain(secret);
  });

  it("partner rate limit: defaults 2000 and 1000/s; integers >= 1 only, reported by name", () => {
    const defaults = loadConfig({});
    expect(defaults.HANSE_PARTNER_RATE_LIMIT_BURST).toBe(2000);
    expect(defaults.HANSE_PARTNER_RATE_LIMIT_PER_SECOND).toBe(1000);
    const set = loadConfig({ HANSE_PARTNER_RATE_LIMIT_BURST: "3", HANSE_PARTNER_RATE_LIMIT_PER_SECOND: "1" });
    expect(set.HANSE_PARTNER_RATE_LIMIT_BURST).toBe(3);
    expect(set.HANSE_PARTNER_RATE_LIMIT_PER_SECOND).toBe(1);
    for (const [burst, perSecond] of [
      ["0", "abc"],
      ["abc", "0"],
      ["-1", "-5"],
    ] as const) {
      let error: unknown;
      try {
        loadConfig({
          HANSE_PARTNER_RATE_LIMIT_BURST: burst,
          HANSE_PARTNER_RATE_LIMIT_PER_SECOND: perSecond,
        });
      } catch (e) {
        error = e;
      }
      expect(error, `${burst} ${perSecond}`).toBeInstanceOf(ConfigError);
      const { problems } = error as ConfigError;
      expect(problems).toHaveLength(2);
      expect(problems[0]).toMatch(/^HANSE_PARTNER_RATE_LIMIT_BURST: /);
      expect(problems[1]).toMatch(/^HANSE_PARTNER_RATE_LIMIT_PER_SECOND: /);
    }
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" }).PORT).toBe(8080);
  });

  it("HANSE_SECRET_KEY_PREVIOUS: comma-separated keys of at least 32 characters each, never echoed in the error", () => {
    const long = "k".repeat(32);
    expect(loadConfig({ HANSE_SECRET_KEY_PREVIOUS: `${long},${long}x` }).HANSE_SECRET_KEY_PREVIOUS).toBe(
      `${long},${long}x`,
    );
    const short = "short-secret-value";
    for (const bad of [short, `${long},${short}`, `${long},`]) {
      let message = "";
      try {
        loadConfig({ HANSE_SECRET_KEY_PREVIOUS: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("HANSE_SECRET_KEY_PREVIOUS");
      expect(message).not.toContain(short);
    }
  });

  it(".env.example documents every setting of the schema and nothing else", () => {
    const text = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    const documented = new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect([...documented].sort()).toEqual(Object.keys(ConfigSchema.properties).sort());
  });
});
