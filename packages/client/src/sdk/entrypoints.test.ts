import { describe, expect, it } from "vitest";
import type { Entrypoint } from "../protocol/index.js";
import { hasAction, selectAction, selectEntry } from "./entrypoints.js";
import { EntrypointMissingError } from "./errors.js";
import { systemTenantsEntry } from "./testing/fake-api.js";

const entries: Entrypoint[] = [
  systemTenantsEntry(["list", "create"]),
  {
    id: "future.thing",
    kind: "quantum-resource",
    href: "/api/v1/future",
    actions: [{ id: "list", method: "GET", href: "/api/v1/future" }],
  },
];

const caught = (fn: () => unknown): EntrypointMissingError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof EntrypointMissingError) return error;
    throw error;
  }
  throw new Error("expected EntrypointMissingError");
};

describe("entrypoint following", () => {
  it("returns the published entry and action", () => {
    const entry = selectEntry(entries, "system.tenants");
    expect(selectAction(entry, "create")).toMatchObject({ method: "POST", href: "/api/v1/system/tenants" });
  });

  it("a missing entry is a definitive denial", () => {
    const error = caught(() => selectEntry(entries, "admin.partners"));
    expect(error.reason).toBe("entry");
    expect(error.entryId).toBe("admin.partners");
    expect(error.message).toContain("not available");
  });

  it("a missing action throws EntrypointMissingError instead of guessing a path", () => {
    const entry = selectEntry(entries, "system.tenants");
    const error = caught(() => selectAction(entry, "read"));
    expect(error).toMatchObject({ reason: "action", entryId: "system.tenants", actionId: "read" });
    expect(caught(() => selectAction(entry, "delete")).reason).toBe("action");
  });

  it("an entry of an unknown kind is unusable", () => {
    expect(caught(() => selectEntry(entries, "future.thing")).reason).toBe("unusable-kind");
    expect(hasAction(entries, "future.thing", "list")).toBe(false);
  });

  it("hasAction answers capability checks", () => {
    expect(hasAction(entries, "system.tenants", "list")).toBe(true);
    expect(hasAction(entries, "system.tenants", "read")).toBe(false);
    expect(hasAction(entries, "nope", "list")).toBe(false);
  });
});
