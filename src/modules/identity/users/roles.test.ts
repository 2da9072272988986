import { describe, expect, it } from "vitest";
import { partnerScopes } from "@hanse/client/protocol";
import { isRole, roleScopeRows, scopesOfRole } from "./roles.js";

const sorted = (scopes: readonly string[]) => [...scopes].sort();

describe("rules/contract §7: the role → scope table", () => {
  it("owner holds every tenant scope except the partner ones", () => {
    expect(sorted(scopesOfRole("owner", "customer"))).toEqual(
      sorted([
        "admin:read",
        "admin:write",
        "workflows:transition",
        "workflows:read",
        "users:read",
        "users:write",
      ]),
    );
  });

  it("admin holds the owner's scopes without users:write", () => {
    expect(sorted(scopesOfRole("admin", "customer"))).toEqual(
      sorted(scopesOfRole("owner", "customer").filter((s) => s !== "users:write")),
    );
  });

  it("viewer holds admin:read, workflows:read and users:read", () => {
    expect(sorted(scopesOfRole("viewer", "customer"))).toEqual(
      sorted(["admin:read", "workflows:read", "users:read"]),
    );
  });

  it("in the system tenant owner and admin also hold every system-only scope", () => {
    const systemOnly = [
      "tenants:list",
      "tenants:read",
      "tenants:create",
      "tenants:write",
      "system_diagnostics:read",
    ];
    for (const role of ["owner", "admin"] as const) {
      expect(sorted(scopesOfRole(role, "system"))).toEqual(
        sorted([...systemOnly, ...scopesOfRole(role, "customer")]),
      );
    }
  });

  it("in the system tenant viewer holds tenants:list, tenants:read and system_diagnostics:read besides its reads", () => {
    expect(sorted(scopesOfRole("viewer", "system"))).toEqual(
      sorted([
        "tenants:list",
        "tenants:read",
        "system_diagnostics:read",
        "admin:read",
        "workflows:read",
        "users:read",
      ]),
    );
  });

  it("no role holds a partner scope, and every row of the table is listed once", () => {
    const rows = roleScopeRows();
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row.scopes.some((s) => (partnerScopes as readonly string[]).includes(s))).toBe(false);
      expect(new Set(row.scopes).size).toBe(row.scopes.length);
    }
  });

  it("isRole accepts the three roles only", () => {
    expect(["owner", "admin", "viewer"].every(isRole)).toBe(true);
    expect(isRole("Owner")).toBe(false);
    expect(isRole("superuser")).toBe(false);
  });
});
