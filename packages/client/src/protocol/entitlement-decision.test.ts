import { describe, expect, it } from "vitest";
import { decideEntitlement } from "./entitlement-decision.js";

const base = {
  status: "active" as const,
  capabilities: ["read", "write"],
  validFrom: "2026-01-01T00:00:00.000Z",
  validUntil: "2027-01-01T00:00:00.000Z",
};
const now = new Date("2026-06-01T00:00:00.000Z");

describe("the entitlement decision (issue 21 item 4)", () => {
  it("is entitled when active, within [validFrom, validUntil) and holding every required capability", () => {
    expect(decideEntitlement(base, ["read"], now)).toEqual({ entitled: true, reason: "entitled" });
    expect(decideEntitlement({ ...base, validUntil: null }, [], now).entitled).toBe(true);
  });
  it("refuses an unknown actor, a suspended or revoked status", () => {
    expect(decideEntitlement(undefined, [], now).reason).toBe("unknown");
    expect(decideEntitlement({ ...base, status: "suspended" }, [], now).reason).toBe("suspended");
    expect(decideEntitlement({ ...base, status: "revoked" }, [], now).reason).toBe("revoked");
  });
  it("treats validFrom as inclusive and validUntil as exclusive", () => {
    expect(decideEntitlement(base, [], new Date(base.validFrom)).entitled).toBe(true);
    expect(decideEntitlement(base, [], new Date(Date.parse(base.validFrom) - 1)).reason).toBe(
      "not-yet-valid",
    );
    expect(decideEntitlement(base, [], new Date(base.validUntil)).reason).toBe("expired");
  });
  it("refuses when a required capability is missing", () => {
    expect(decideEntitlement(base, ["read", "admin"], now).reason).toBe("missing-capabilities");
  });
});
