import { Readable } from "node:stream";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { adminHeaders, createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly, ownDatabaseOnly } from "../support/remote-app.js";
import {
  acknowledge,
  allPartnerScopes,
  claim,
  listMailbox,
  partnerUrl,
  readPayload,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";

/*
 * Issue 34 item 6: the partner API keeps the interface's status codes and error codes
 * (rules/interface Errors, partner exchange; rules/contract §4) while each problem's `detail` says
 * what to fix, where that leaks nothing: which header is missing, the form of the key, the accepted
 * content types, what is wrong with the idempotency key or the body. An unknown, a revoked and a
 * wrong-secret key read alike, and no detail repeats a key, a secret, a claim token or an
 * idempotency key.
 */

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const readsLogs = inProcessOnly("reads the server's log lines");
const countsUploads = ownDatabaseOnly("counts the uploads in its database (nothing created)");

let t: TestApp;
let tenant: ProvisionedTenant;
let p: PartnerSetup;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  p = await setupPartner(t, tenant.token);
});
afterAll(async () => {
  await t.close();
});

interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  correlationId: string;
  errors?: { pointer: string; message: string }[];
}
const problem = (r: { json: () => unknown }) => r.json() as Problem;
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const fakeSecret = `hanse_pk_${"Q".repeat(43)}`;

const details = {
  keyMissing: "An API key is required: send the header Authorization: Bearer <apiKeyId>:<secret>.",
  keyMalformed:
    "The credential is not a partner API key: expected Authorization: Bearer <apiKeyId>:<secret>, " +
    "the key id and secret exactly as issued.",
  keyNotAccepted:
    "The API key is not accepted: it is unknown, revoked or expired, or its secret is wrong. " +
    "Ask the operator for a current key.",
  claimTokenMissing:
    "The X-B2B-Claim-Token header is missing: send the claim token that claim returned for this delivery.",
  noSuchDelivery: "No such delivery, claim or lease.",
  noSuchConnection: "No such connection for this key.",
  contentTypeMissing: "Content-Type is missing: send application/edifact or application/octet-stream.",
  contentTypeWrong: "Content-Type must be application/edifact or application/octet-stream.",
  keyRequired: "Idempotency-Key is required: 1–200 characters of letters, digits, '.', '_', ':' and '-'.",
  keyTooLong:
    "Idempotency-Key is longer than 200 characters: 1–200 characters of letters, digits, '.', '_', ':' and '-'.",
  keyCharacters:
    "Idempotency-Key holds a character other than letters, digits, '.', '_', ':' and '-': " +
    "1–200 characters of letters, digits, '.', '_', ':' and '-'.",
};

const someDelivery = "01a20031-0000-7000-8000-000000000000";
/** Every partner route; the inbox twice: a small upload (checked by its statement) and a chunked one. */
const routes = (connectionId: string) => [
  { method: "POST" as const, url: partnerUrl(connectionId, "/inbox") },
  { method: "POST" as const, url: partnerUrl(connectionId, "/inbox"), chunked: true },
  { method: "GET" as const, url: partnerUrl(connectionId, "/mailbox") },
  { method: "POST" as const, url: partnerUrl(connectionId, `/mailbox/${someDelivery}/claim`) },
  { method: "GET" as const, url: partnerUrl(connectionId, `/mailbox/${someDelivery}/payload`) },
  { method: "POST" as const, url: partnerUrl(connectionId, `/mailbox/${someDelivery}/acknowledge`) },
];
type Route = ReturnType<typeof routes>[number];
const send = (route: Route, headers: Record<string, string>) =>
  t.inject({
    method: route.method,
    url: route.url,
    headers: {
      "content-type": "application/edifact",
      "idempotency-key": "detail-case",
      "x-b2b-claim-token": "A".repeat(43),
      ...headers,
    },
    ...(route.method === "POST"
      ? {
          payload: route.chunked
            ? Readable.from([Buffer.from(validOrders("DT"))])
            : Buffer.from(validOrders("DT")),
        }
      : {}),
  });
/** A problem body without what differs per request (its correlation id). */
const withoutIds = (body: string) => {
  const { correlationId, ...rest } = JSON.parse(body) as Problem;
  expect(correlationId).toMatch(/\S/);
  return JSON.stringify(rest);
};

describe("rules/contract §4 Auth: 401 ERR_B2B_EXCHANGE_UNAUTHENTICATED, with a detail that says what to fix", () => {
  it("no Authorization header: the detail names the header and the key's form, on every partner route", async () => {
    for (const route of routes(p.connectionId)) {
      const r = await send(route, {});
      expect(r.statusCode, route.url).toBe(401);
      expect(r.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(problem(r)).toMatchObject({
        status: 401,
        code: "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
        detail: details.keyMissing,
      });
    }
  });

  it("a malformed API key (not `<apiKeyId>:<secret>`), another scheme, a session or an access token: the detail gives the expected form", async () => {
    const malformed: [string, Record<string, string>][] = [
      ["another scheme", { authorization: "Basic eDp5" }],
      ["no colon", as(`${p.apiKeyId}${fakeSecret}`)],
      ["id that is no uuid", as(`not-an-id:${fakeSecret}`)],
      ["secret of another form", as(`${p.apiKeyId}:short`)],
      ["secret alone", as(p.token.split(":")[1] ?? "")],
      ["a session", as(tenant.token)],
      ["an access token", adminHeaders],
    ];
    for (const route of routes(p.connectionId)) {
      for (const [name, headers] of malformed) {
        const r = await send(route, headers);
        expect(r.statusCode, `${name} ${route.url}`).toBe(401);
        expect(problem(r)).toMatchObject({
          status: 401,
          code: "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
          detail: details.keyMalformed,
        });
        // The detail never repeats what was presented.
        expect(r.body).not.toContain("short");
        expect(r.body).not.toContain(p.apiKeyId);
        expect(r.body).not.toContain(tenant.token);
      }
    }
  });

  it("an unknown key, a revoked key and a wrong secret get byte-identical bodies apart from the correlation id", async () => {
    const revoked = await setupPartner(t, tenant.token, { partnerId: p.partnerId });
    const rv = await t.inject({
      method: "POST",
      url: `/api/v1/admin/api-keys/${revoked.apiKeyId}/revoke`,
      headers: as(tenant.token),
    });
    expect(rv.statusCode).toBe(200);
    const refused: [string, string][] = [
      ["unknown", `01a20031-0000-7000-8000-00000000dead:${fakeSecret}`],
      ["revoked", revoked.token],
      ["wrong secret", `${p.apiKeyId}:${fakeSecret}`],
    ];
    for (const route of routes(p.connectionId)) {
      const bodies = new Set<string>();
      const challenges = new Set<unknown>();
      for (const [name, token] of refused) {
        const r = await send(route, as(token));
        expect(r.statusCode, `${name} ${route.url}`).toBe(401);
        expect(problem(r)).toMatchObject({
          code: "ERR_B2B_EXCHANGE_UNAUTHENTICATED",
          detail: details.keyNotAccepted,
        });
        expect(r.body).not.toContain(token.split(":")[1]);
        expect(r.body).not.toContain(token.split(":")[0]);
        bodies.add(withoutIds(r.body));
        challenges.add(r.headers["www-authenticate"]);
        expect(r.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
      }
      expect(bodies.size, route.url).toBe(1);
      expect(challenges.size, route.url).toBe(1);
    }
  });

  it("a key without the operation's scope stays 404 ERR_B2B_EXCHANGE_NOT_FOUND; its detail names the scope, whatever the connection", async () => {
    const operations: [Route, string][] = routes(p.connectionId).map((route, i) => [
      route,
      [
        "b2b_exchange_partner_inbox:create",
        "b2b_exchange_partner_inbox:create",
        "b2b_exchange_partner_mailbox:list",
        "b2b_exchange_partner_mailbox:claim",
        "b2b_exchange_partner_mailbox:payload_read",
        "b2b_exchange_partner_mailbox:acknowledge",
      ][i] as string,
    ]);
    const foreign = await setupPartner(t, tenant.token);
    for (const [route, scope] of operations) {
      const key = await t.inject({
        method: "POST",
        url: "/api/v1/admin/api-keys",
        headers: as(tenant.token),
        payload: { partnerId: p.partnerId, scopes: allPartnerScopes.filter((s) => s !== scope) },
      });
      const token = key.json<{ token: string }>().token;
      const own = await send(route, as(token));
      const other = await send(
        { ...route, url: route.url.replace(p.connectionId, foreign.connectionId) },
        as(token),
      );
      for (const r of [own, other]) {
        expect(r.statusCode, route.url).toBe(404);
        expect(problem(r)).toMatchObject({
          code: "ERR_B2B_EXCHANGE_NOT_FOUND",
          detail: `The API key lacks the scope this operation needs (${scope}); ask the operator for a key that holds it.`,
        });
      }
      // The scope is decided before any connection is looked up: own and foreign read alike.
      expect(withoutIds(own.body)).toBe(withoutIds(other.body));
    }
  });

  it("an upload with a fault of its own gets the same 401 detail first (small and chunked)", async () => {
    const inboxes = routes(p.connectionId).slice(0, 2);
    const faults: Record<string, string>[] = [{ "content-type": "text/plain" }, { "idempotency-key": "a b" }];
    for (const route of inboxes) {
      for (const fault of faults) {
        const refused = await send(route, { ...fault, ...as(`${p.apiKeyId}:${fakeSecret}`) });
        expect(problem(refused)).toMatchObject({ status: 401, detail: details.keyNotAccepted });
        const malformed = await send(route, { ...fault, ...as("not-a-key") });
        expect(problem(malformed)).toMatchObject({ status: 401, detail: details.keyMalformed });
      }
    }
  });

  it("a refused key's secret appears in no log line", async ({ skip }) => {
    skip(readsLogs);
    const secret = `hanse_pk_${"L".repeat(43)}`;
    for (const route of routes(p.connectionId)) await send(route, as(`${p.apiKeyId}:${secret}`));
    expect(t.logs.join("\n")).not.toContain(secret);
  });
});

describe("rules/interface A payload and acknowledge: a missing X-B2B-Claim-Token is 404 ERR_B2B_EXCHANGE_NOT_FOUND naming the header", () => {
  it("without the header: the detail names X-B2B-Claim-Token; a wrong token keeps the claim-and-lease detail", async () => {
    const setup = await setupPartner(t, tenant.token);
    expect((await upload(t, setup, validOrders("CT1"), "claim-token-1")).statusCode).toBe(202);
    await t.drainJobs();
    const [entry] = (await listMailbox(t, setup)).items;
    if (!entry) throw new Error("mailbox empty");
    const claimed = await claim(t, setup, entry.deliveryAttemptId);
    expect(claimed.statusCode).toBe(200);
    const { claimToken } = claimed.json<{ claimToken: string }>();
    const id = entry.deliveryAttemptId;
    const readWithout = () =>
      t.inject({
        method: "GET",
        url: partnerUrl(setup.connectionId, `/mailbox/${id}/payload`),
        headers: as(setup.token),
      });

    for (const r of [await readWithout(), await acknowledge(t, setup, id)]) {
      expect(r.statusCode).toBe(404);
      expect(problem(r)).toMatchObject({
        status: 404,
        code: "ERR_B2B_EXCHANGE_NOT_FOUND",
        detail: details.claimTokenMissing,
      });
    }
    // The same for a delivery id that names nothing: the header is checked before any lookup.
    const none = await acknowledge(t, setup, someDelivery);
    expect(problem(none)).toMatchObject({
      code: "ERR_B2B_EXCHANGE_NOT_FOUND",
      detail: details.claimTokenMissing,
    });

    const wrong = "W".repeat(43);
    for (const r of [await readPayload(t, setup, id, wrong), await acknowledge(t, setup, id, wrong)]) {
      expect(r.statusCode).toBe(404);
      expect(problem(r)).toMatchObject({
        code: "ERR_B2B_EXCHANGE_NOT_FOUND",
        detail: details.noSuchDelivery,
      });
      expect(r.body).not.toContain(wrong);
    }
    // A connection the key may not use is answered first, as before, with or without the header.
    const foreign = await setupPartner(t, tenant.token);
    const hidden = await acknowledge(t, { connectionId: foreign.connectionId, token: setup.token }, id);
    expect(problem(hidden)).toMatchObject({
      code: "ERR_B2B_EXCHANGE_NOT_FOUND",
      detail: details.noSuchConnection,
    });

    // The token still works: nothing above spent the lease.
    const read = await readPayload(t, setup, id, claimToken);
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(claimToken);
    const ack = await acknowledge(t, setup, id, claimToken);
    expect(ack.statusCode, ack.body).toBe(200);
  });
});

describe("rules/interface A POST /inbox: 400 ERR_B2B_EXCHANGE_INVALID_REQUEST whose detail and pointer name the fault", () => {
  const interchange = validOrders("UP1");
  const cases: {
    name: string;
    headers: Record<string, string | undefined>;
    body: string;
    detail: string;
    pointer: string;
  }[] = [
    {
      name: "a content type that is neither accepted type",
      headers: { "content-type": "text/plain" },
      body: interchange,
      detail: details.contentTypeWrong,
      pointer: "/headers/content-type",
    },
    {
      name: "application/json",
      headers: { "content-type": "application/json" },
      body: interchange,
      detail: details.contentTypeWrong,
      pointer: "/headers/content-type",
    },
    {
      name: "no content type",
      headers: { "content-type": undefined },
      body: interchange,
      detail: details.contentTypeMissing,
      pointer: "/headers/content-type",
    },
    {
      name: "no Idempotency-Key",
      headers: { "idempotency-key": undefined },
      body: interchange,
      detail: details.keyRequired,
      pointer: "/headers/idempotency-key",
    },
    {
      name: "an Idempotency-Key of 201 characters",
      headers: { "idempotency-key": "k".repeat(201) },
      body: interchange,
      detail: details.keyTooLong,
      pointer: "/headers/idempotency-key",
    },
    {
      name: "an Idempotency-Key with a space",
      headers: { "idempotency-key": "order 4711" },
      body: interchange,
      detail: details.keyCharacters,
      pointer: "/headers/idempotency-key",
    },
    {
      name: "an empty body",
      headers: {},
      body: "",
      detail: "The body is empty.",
      pointer: "/body",
    },
    {
      name: "a body that is no interchange",
      headers: {},
      body: "PO 4711, 3 pallets",
      detail: "The body does not start with UNA or UNB.",
      pointer: "/body",
    },
    {
      name: "an interchange without UNZ",
      headers: {},
      body: interchange.slice(0, interchange.lastIndexOf("UNZ")),
      detail: "The interchange does not end with UNZ.",
      pointer: "/body",
    },
    {
      name: "two interchanges",
      headers: {},
      body: interchange + validOrders("UP2"),
      detail: "Data follows UNZ: the body holds more than one interchange.",
      pointer: "/body",
    },
  ];
  const count = async () =>
    (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM exchange_uploads`.execute(
        t.container.database.db,
      )
    ).rows[0]?.n ?? 0;

  it("each fault, as a small upload and as a chunked one: status, code, detail and pointer; nothing created", async ({
    skip,
  }) => {
    skip(countsUploads);
    const before = await count();
    for (const c of cases) {
      for (const chunked of [false, true]) {
        const sent: Record<string, string | undefined> = {
          ...as(p.token),
          "content-type": "application/edifact",
          "idempotency-key": "upload-fault",
          ...c.headers,
        };
        const headers = Object.fromEntries(
          Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined),
        );
        const body = Buffer.from(c.body);
        const r = await t.inject({
          method: "POST",
          url: partnerUrl(p.connectionId, "/inbox"),
          headers,
          payload: chunked ? Readable.from(body.length > 0 ? [body] : []) : body,
        });
        const label = `${c.name}${chunked ? " (chunked)" : ""}`;
        expect(r.statusCode, `${label}: ${r.body}`).toBe(400);
        expect(problem(r), label).toMatchObject({
          status: 400,
          code: "ERR_B2B_EXCHANGE_INVALID_REQUEST",
          detail: c.detail,
          errors: [{ pointer: c.pointer, message: c.detail }],
        });
        // The idempotency key and the body are never repeated.
        const key = c.headers["idempotency-key"];
        if (key) expect(r.body).not.toContain(key);
        expect(r.body).not.toContain("upload-fault");
        expect(r.body).not.toContain("4711");
      }
    }
    expect(await count()).toBe(before);
  });

  it("a detail never carries the key's secret (a fault after a good key)", async () => {
    const r = await upload(t, p, "x", "leak-check-detail", "text/plain");
    expect(r.statusCode).toBe(400);
    expect(r.body).not.toContain(p.token.split(":")[1]);
  });
});
