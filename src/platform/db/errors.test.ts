import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./errors.js";

describe("isDatabaseUnavailable: what is answered 503 with Retry-After", () => {
  it("a connection that node-postgres lost under a statement or a transaction (no code of its own)", () => {
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated"))).toBe(true);
    expect(
      isDatabaseUnavailable(new Error("Client has encountered a connection error and is not queryable")),
    ).toBe(true);
  });

  it("socket and SQLSTATE codes of an unreachable or restarting server; not other failures", () => {
    const withCode = (code: string) => Object.assign(new Error("x"), { code });
    for (const code of ["ECONNRESET", "ECONNREFUSED", "08006", "08P01", "57P01", "57P03", "53300"]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    }
    for (const code of ["23505", "42P01", "40001"])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
    expect(isDatabaseUnavailable(new Error("Connection refused by policy"))).toBe(false);
  });
});
