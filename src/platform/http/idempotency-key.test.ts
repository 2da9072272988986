import { describe, expect, it } from "vitest";
import { AppError } from "../errors/app-error.js";
import { requireIdempotencyKey } from "./idempotency-key.js";

/** What Node hands over for a header whose bytes are `key`'s UTF-8: one character per byte. */
const onTheWire = (key: string) => Buffer.from(key, "utf8").toString("latin1");
const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : "not an AppError";
  }
};

describe("requireIdempotencyKey", () => {
  const workflow = { header: "X-Idempotency-Key", characters: "any" } as const;
  const tenant = { header: "Idempotency-Key", characters: "visible-ascii" } as const;

  it("a missing, empty or repeated header is ERR_IDEMPOTENCY_KEY_REQUIRED under both rules", () => {
    for (const rule of [workflow, tenant]) {
      for (const value of [undefined, "", ["a", "b"]]) {
        expect(codeOf(() => requireIdempotencyKey(value, rule))).toBe("ERR_IDEMPOTENCY_KEY_REQUIRED");
      }
    }
  });

  it("rules/interface Limits: a workflow key counts characters after UTF-8 decoding, surrogate pairs as one", () => {
    for (const letter of ["k", "ä", "€", "🚚"]) {
      expect(requireIdempotencyKey(onTheWire(letter.repeat(255)), workflow)).toBe(
        onTheWire(letter.repeat(255)),
      );
      expect(codeOf(() => requireIdempotencyKey(onTheWire(letter.repeat(256)), workflow))).toBe(
        "ERR_VALIDATION",
      );
    }
    expect(requireIdempotencyKey("order 4711 / customer jane", workflow)).toBe("order 4711 / customer jane");
  });

  it("rules/contract §3: a tenant key is 1–255 visible ASCII characters", () => {
    expect(requireIdempotencyKey("k".repeat(255), tenant)).toBe("k".repeat(255));
    for (const value of ["k".repeat(256), "with space", onTheWire("ä")]) {
      expect(codeOf(() => requireIdempotencyKey(value, tenant))).toBe("ERR_VALIDATION");
    }
  });
});
