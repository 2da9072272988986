import { describe, expect, it } from "vitest";
import { credentialFromJson } from "./credentials.repository.js";

/** The credential row travels as one JSON column; these are the forms PostgreSQL's to_json writes. */
describe("credentialFromJson", () => {
  const json = {
    id: "0190f2a0-0000-7000-8000-0000000000aa",
    kind: "access_token",
    principal_id: "0190f2a0-0000-7000-8000-0000000000ab",
    name: "ci",
    secret_hash: "\\x2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
    scopes: ["workflows:transition", "workflows:read"],
    connection_ids: null,
    expires_at: "2026-11-25T22:21:56.950011+00:00",
    revoked_at: null,
    tenant_id: "0190f2a0-0000-7000-8000-0000000000ac",
    tenant_slug: "acme",
    tenant_type: "customer",
    tenant_status: "active",
    user_role: null,
    user_status: null,
  };

  it("gives bytea back as bytes and timestamps (microseconds, any offset) as dates", () => {
    const row = credentialFromJson({ ...json, revoked_at: "2026-11-25T23:51:56.9+01:30" });
    expect(row?.secret_hash).toEqual(
      Buffer.from("2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", "hex"),
    );
    expect(row?.expires_at?.toISOString()).toBe("2026-11-25T22:21:56.950Z");
    expect(row?.revoked_at?.toISOString()).toBe("2026-11-25T22:21:56.900Z");
    expect(row?.scopes).toEqual(["workflows:transition", "workflows:read"]);
    expect(row?.connection_ids).toBeNull();
  });

  it("keeps null timestamps null and reads JSON text as well as a parsed object", () => {
    const row = credentialFromJson(JSON.stringify({ ...json, expires_at: null }));
    expect(row?.expires_at).toBeNull();
    expect(row?.revoked_at).toBeNull();
    expect(row?.tenant_slug).toBe("acme");
  });

  it("no credential (null, or the all-null row of an outer join) is undefined", () => {
    expect(credentialFromJson(null)).toBeUndefined();
    expect(credentialFromJson(undefined)).toBeUndefined();
    expect(credentialFromJson({ ...json, id: null, secret_hash: null })).toBeUndefined();
  });
});
