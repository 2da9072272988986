// remote mode: in-process only: a fake clock, HANSE_SSO_ALLOW_INSECURE of its own (the test identity provider)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { addUser, expectProblem, patchUser } from "../support/users.js";

/**
 * rules/contract §7 audit: a refused single sign-on is a `session.failed` record (method `sso`) in the
 * tenant's trail once the callback knows the tenant (a genuine state), with `principalId` the user
 * when the e-mail address matched one, else null. It never holds the code, the state, a token or
 * the e-mail address. A callback whose state names no tenant has no trail to write to.
 */
const clock = createManualClock(new Date());
let t: TestApp;
let idp: TestIssuer;
let tenant: ProvisionedTenant;

beforeAll(async () => {
  idp = await startTestIssuer({ now: () => clock.now() });
  t = await createTestApp({ clock, env: { HANSE_SSO_ALLOW_INSECURE: "1" } });
  tenant = await provisionTenant(t);
  const saved = await t.inject({
    method: "PUT",
    url: "/api/v1/admin/sso",
    headers: bearer(tenant.token),
    payload: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, autoCreate: null },
  });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

/** A sign-in of the tenant through the issuer: the callback URL (path and query), unused. */
async function callbackUrl(): Promise<string> {
  const started = await t.inject({ method: "GET", url: `/api/v1/auth/sso/${tenant.slug}` });
  expect(started.statusCode, started.body).toBe(302);
  const answer = await fetch(String(started.headers.location), { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location") ?? "");
  return `${back.pathname}${back.search}`;
}

interface FailedRecord {
  id: string;
  type: string;
  principalId: string | null;
  principalKind: string | null;
  targetId: string | null;
  sourceAddress: string | null;
  correlationId: string | null;
  method: string | null;
  data: Record<string, unknown>;
}

const failedRecords = async () => {
  const answer = await t.inject({
    method: "GET",
    url: "/api/v1/admin/audit-events?type=session.failed&limit=100",
    headers: bearer(tenant.token),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json<{ items: FailedRecord[] }>().items;
};

/** Runs a refused callback: the one new session.failed record, or undefined; never the secrets. */
async function refusedRecord(url: string): Promise<FailedRecord | undefined> {
  const before = new Set((await failedRecords()).map((r) => r.id));
  const answer = await t.inject({ method: "GET", url, headers: { "x-correlation-id": "sso-refused-1" } });
  expectProblem(answer, 401, "ERR_UNAUTHENTICATED");
  const added = (await failedRecords()).filter((r) => !before.has(r.id));
  expect(added.length).toBeLessThanOrEqual(1);
  const text = JSON.stringify(added);
  const query = new URL(url, "http://x").searchParams;
  for (const secret of [query.get("code"), query.get("state"), idp.clientSecret, ...idp.idTokens]) {
    if (secret) expect(text).not.toContain(secret);
  }
  return added[0];
}

describe("rules/contract §7 audit: a refused single sign-on is session.failed", () => {
  it("a deactivated user: principalId is the user, method sso, with the request's correlation id; no e-mail in it", async () => {
    const member = await addUser(t, tenant, "viewer");
    expect((await patchUser(t, tenant.token, member.id, { status: "deactivated" })).statusCode).toBe(200);
    idp.signIn = { email: member.email };
    const record = await refusedRecord(await callbackUrl());
    expect(record).toMatchObject({
      type: "session.failed",
      principalId: member.id,
      principalKind: "user",
      targetId: null,
      correlationId: "sso-refused-1",
      data: { method: "sso", reason: "user_not_active" },
    });
    expect(JSON.stringify(record)).not.toContain(member.email);
  });

  it("an e-mail address no user has (no automatic creation): principalId null", async () => {
    idp.signIn = { email: "stranger@elsewhere.example" };
    const record = await refusedRecord(await callbackUrl());
    expect(record).toMatchObject({
      principalId: null,
      principalKind: null,
      data: { method: "sso", reason: "unknown_email" },
    });
    expect(JSON.stringify(record)).not.toContain("stranger@elsewhere.example");
  });

  it("an unverified e-mail address, a wrong audience and a replayed state are recorded with principalId null", async () => {
    const member = await addUser(t, tenant, "admin");
    idp.signIn = { email: member.email, emailVerified: false };
    expect(await refusedRecord(await callbackUrl())).toMatchObject({
      principalId: null,
      data: { method: "sso", reason: "email_not_verified" },
    });

    idp.signIn = { email: member.email };
    idp.tamper = { claims: { aud: "another-client" } };
    expect(await refusedRecord(await callbackUrl())).toMatchObject({
      principalId: null,
      data: { method: "sso", reason: "id_token_refused" },
    });

    const url = await callbackUrl();
    const ok = await t.inject({ method: "GET", url });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(await refusedRecord(url)).toMatchObject({
      principalId: null,
      data: { method: "sso", reason: "state_used" },
    });
  });

  it("an expired state is recorded; a state that is unknown or malformed names no tenant and records nothing", async () => {
    idp.signIn = { email: "someone@acme.example" };
    const url = await callbackUrl();
    clock.advance(601_000);
    expect(await refusedRecord(url)).toMatchObject({ data: { method: "sso", reason: "state_expired" } });

    const forged = new URL(await callbackUrl(), "http://x");
    const state = forged.searchParams.get("state") ?? "";
    forged.searchParams.set("state", `${state.slice(0, -4)}AAAA`);
    expect(await refusedRecord(`${forged.pathname}${forged.search}`)).toBeUndefined();
    expect(await refusedRecord("/api/v1/auth/sso/callback?code=abc&state=not-a-state")).toBeUndefined();
  });
});
