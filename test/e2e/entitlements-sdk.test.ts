// remote mode: in-process only: a fake clock and grant and feed settings of its own
import { createPublicKey, generateKeyPairSync, verify as verifySignature } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import {
  CursorExpiredError,
  GrantVerificationError,
  HanseApiError,
  createEntitlementProjection,
  createGrantVerifier,
  createServiceClient,
  entitlementServicePaths,
  type FeedEvent,
  type Jwks,
  type ServiceClient,
  type SnapshotPage,
} from "@hanse/client";
import { createEntitlementApp, provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startInterceptingProxy } from "../support/intercepting-proxy.js";
import { createTestApp, runJobNow, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

const clock = createManualClock(new Date());
const now = () => clock.now();
let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;
let counter = 0;

async function setup(options: { audience?: string; required?: string[] } = {}) {
  const app = await createEntitlementApp(t, tenant.token, {
    appId: `sdk-${counter++}`,
    audience: options.audience,
    requiredCapabilities: options.required,
  });
  const { appId, binding, set } = app;
  const client = (url = baseUrl, extra: { retries?: number } = {}) => app.client(url, { now, ...extra });
  return { appId, binding, set, client };
}

const runHousekeeping = () => runJobNow(t, "entitlements.housekeeping");

/**
 * A proxy in front of the real server: every request is forwarded (so the server records its
 * nonce), then the client gets what `answer(n)` says for the n-th request instead of the real answer.
 */
async function startProxy(answer: (n: number) => "forward" | "503" | "429" | "reset") {
  const proxy = await startInterceptingProxy(baseUrl, ({ n }) => {
    const mode = answer(n);
    if (mode === "forward") return "pass";
    if (mode === "reset") return "reset";
    return {
      status: Number(mode),
      headers: { "content-type": "application/problem+json", "retry-after": "0" },
      body: JSON.stringify({ code: mode === "503" ? "ERR_UNAVAILABLE" : "ERR_RATE_LIMITED", detail: "x" }),
    };
  });
  return {
    url: proxy.url,
    get seen() {
      return proxy.exchanges.map((e) => ({
        nonce: String(e.headers["x-platform-service-nonce"]),
        timestamp: String(e.headers["x-platform-service-timestamp"]),
        upstreamStatus: e.upstream.status,
      }));
    },
    close: proxy.close,
  };
}

const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
};

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: { HANSE_FEED_RETENTION_SECONDS: "60", HANSE_GRANT_TTL_SECONDS: "120" },
  });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

describe("SDK service client: signing (rules/contract §5)", () => {
  it("rules/contract §5: a request the SDK signs passes the server, also with UTF-8 and reserved characters in the path", async () => {
    const { set, client } = await setup();
    await set("user 1/ä+b", { plan: "team" });
    const sdk = client();
    const known = await sdk.introspect("user 1/ä+b");
    expect(known).toMatchObject({ actorId: "user 1/ä+b", entitled: true, plan: "team", status: "active" });
    const unknown = await sdk.introspect("nobody");
    expect(unknown).toMatchObject({ entitled: false, status: null });
  });

  it("rules/contract §5: every attempt has a fresh nonce and timestamp: retries after 503, 429 and a reset never hit NONCE_REUSED", async () => {
    const { set, client } = await setup();
    await set("a");
    const modes = ["503", "reset", "429", "forward"] as const;
    const proxy = await startProxy((n) => modes[n] ?? "forward");
    try {
      const answer = await client(proxy.url).introspect("a");
      expect(answer.entitled).toBe(true);
      expect(proxy.seen).toHaveLength(4);
      // The server accepted every attempt (it recorded each nonce), so none was a replay.
      expect(proxy.seen.map((s) => s.upstreamStatus)).toEqual([200, 200, 200, 200]);
      expect(new Set(proxy.seen.map((s) => s.nonce)).size).toBe(4);
      for (const attempt of proxy.seen) {
        expect(Buffer.from(attempt.nonce, "base64url").length).toBeGreaterThanOrEqual(16);
        expect(attempt.nonce).toMatch(/^[A-Za-z0-9_-]+$/);
      }
    } finally {
      await proxy.close();
    }
  });

  it("retries are bounded: after `retries` further attempts the 503 surfaces", async () => {
    const { set, client } = await setup();
    await set("a");
    const proxy = await startProxy(() => "503");
    try {
      const failure = await client(proxy.url, { retries: 2 })
        .introspect("a")
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(HanseApiError);
      expect((failure as HanseApiError).status).toBe(503);
      expect(proxy.seen).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  it("a 401 is not retried, and no error carries the secret, a nonce or a signature", async () => {
    const { binding } = await setup();
    const wrong = createServiceClient({
      baseUrl,
      credentialId: binding.credentialId,
      secret: `${binding.secret}x`,
      now,
    });
    const failure = (await wrong.introspect("a").catch((error: unknown) => error)) as HanseApiError;
    expect(failure).toBeInstanceOf(HanseApiError);
    expect(failure.code).toBe("ERR_SERVICE_AUTH_INVALID_SIGNATURE");
    const text = `${failure.message} ${JSON.stringify(failure)} ${String(failure.stack)}`;
    expect(text).not.toContain(binding.secret);
    expect(JSON.stringify(wrong)).not.toContain(binding.secret);
    expect(() => createServiceClient({ baseUrl, credentialId: "not-an-id", secret: binding.secret })).toThrow(
      /service credential id/,
    );
  });
});

describe("SDK service client: snapshot and changes (rules/interface C rule 1)", () => {
  it("rules/interface C rule 1: snapshot pages after the first send cursor + the same asOfSequence and show that state while writers continue", async () => {
    const { set, client } = await setup();
    for (const actor of ["a", "b", "c", "d", "e"]) await set(actor);
    const pages: SnapshotPage[] = [];
    for await (const page of client().snapshot({ limit: 2 })) {
      pages.push(page);
      await set(`late-${pages.length}`);
      await set("a", { plan: `changed-${pages.length}` });
    }
    // Actors created after asOfSequence take a place in the page order but show no state, so a
    // page may hold fewer items than the limit: the iterator follows meta.hasMore, not the counts.
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.at(-1)?.meta).toEqual({ hasMore: false, nextCursor: null });
    expect(new Set(pages.map((p) => p.asOfSequence))).toEqual(new Set([5]));
    const items = pages.flatMap((p) => p.items);
    expect(items.map((e) => e.actorId).sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(items.find((e) => e.actorId === "a")?.plan).toBe("pro");
  });

  it("changes follow meta.hasMore page by page in ascending order to the end of the feed", async () => {
    const { set, client } = await setup();
    for (let i = 0; i < 7; i++) await set(`actor-${i}`);
    const pages = await collect(client().changes({ afterSequence: 2, limit: 2 }));
    expect(pages.map((p) => p.items.map((c) => c.sequence))).toEqual([[3, 4], [5, 6], [7]]);
    expect(pages.at(-1)?.meta).toEqual({ hasMore: false, lastSequence: 7, latestSequence: 7 });
    const empty = await collect(client().changes({ afterSequence: 7 }));
    expect(empty).toHaveLength(1);
    expect(empty[0]?.items).toEqual([]);
  });

  it("catching up, pages known to exist are requested ahead and still yielded in order, each from where the last ended", async () => {
    const { set, client } = await setup();
    for (let i = 0; i < 23; i++) await set(`ahead-${i % 5}`);
    const pages = await collect(client().changes({ afterSequence: 1, limit: 3 }));
    const sequences = pages.flatMap((p) => p.items.map((c) => c.sequence));
    expect(sequences).toEqual(Array.from({ length: 22 }, (_, i) => i + 2));
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 3, 3, 3, 3, 3, 1]);
    expect(pages.at(-1)?.meta).toEqual({ hasMore: false, lastSequence: 23, latestSequence: 23 });
  });

  it("follow tails the feed until its signal aborts", async () => {
    const { set, client } = await setup();
    await set("a");
    const controller = new AbortController();
    const seen: number[] = [];
    const tail = (async () => {
      for await (const page of client().follow({
        afterSequence: 0,
        pollIntervalMs: 5,
        signal: controller.signal,
      })) {
        seen.push(...page.items.map((c) => c.sequence));
      }
    })();
    await waitUntil(async () => seen.includes(1), { what: "the first change" });
    await set("b");
    await waitUntil(async () => seen.includes(2), { what: "the change written while following" });
    controller.abort();
    await tail;
    expect(seen).toEqual([1, 2]);
  });
});

describe("SDK local projection (rules/interface C rules 1–2)", () => {
  it("rules/interface C rule 2: on ERR_APP_ENTITLEMENT_CURSOR_EXPIRED the projection is discarded and rebuilt from a new snapshot", async () => {
    const { set, client } = await setup();
    await set("x");
    await set("y", { status: "suspended" });
    const events: FeedEvent["type"][] = [];
    const resets: string[] = [];
    const projection = createEntitlementProjection({
      client: client(),
      now,
      requiredCapabilities: ["read"],
      snapshotLimit: 1,
      onEvent: (event) => {
        events.push(event.type);
        if (event.type === "reset") resets.push(event.reason);
      },
    });
    expect(projection.decide("x")).toEqual({ entitled: false, reason: "unknown" });
    expect(await projection.sync()).toBe(2);
    expect(projection.ready).toBe(true);
    expect(projection.decide("x")).toEqual({ entitled: true, reason: "entitled" });
    expect(projection.decide("y")).toEqual({ entitled: false, reason: "suspended" });
    expect(projection.decide("x", ["write"])).toEqual({ entitled: false, reason: "missing-capabilities" });

    clock.advance(120_000);
    await set("x", { status: "revoked" });
    await set("z");
    clock.advance(120_000);
    await set("y");
    await runHousekeeping();
    // The feed after 2 is pruned: the client sees 410 as a typed error.
    const expired = await collect(client().changes({ afterSequence: 2 })).catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(CursorExpiredError);
    expect((expired as CursorExpiredError).status).toBe(410);

    events.length = 0;
    expect(await projection.sync()).toBe(5);
    expect(resets).toEqual(["initial", "cursor-expired"]);
    expect(events[0]).toBe("reset");
    expect(events).toContain("snapshot-complete");
    expect(projection.decide("x")).toEqual({ entitled: false, reason: "revoked" });
    expect(projection.decide("y")).toEqual({ entitled: true, reason: "entitled" });
    expect(projection.decide("z")).toEqual({ entitled: true, reason: "entitled" });
    expect(projection.size).toBe(3);

    // Time decides too (validUntil), with the projection's clock.
    await set("w", { validUntil: new Date(clock.now().getTime() + 60_000).toISOString() });
    await projection.sync();
    expect(projection.decide("w").entitled).toBe(true);
    clock.advance(61_000);
    expect(projection.decide("w")).toEqual({ entitled: false, reason: "expired" });
  });
});

describe("SDK grant verifier (rules/interface C rule 3)", () => {
  const jwksUri = () => `${baseUrl}${entitlementServicePaths.jwks}`;
  const issuer = () => t.config.HANSE_PUBLIC_URL;

  async function grantFor(sdk: ServiceClient, actor: string) {
    return (await sdk.grant(actor)).grant;
  }

  const counted = () => {
    const state = { fetches: 0 };
    const fetchJwks = async (uri: string): Promise<Jwks> => {
      state.fetches++;
      const response = await fetch(uri);
      return (await response.json()) as Jwks;
    };
    return { state, fetchJwks };
  };

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GrantVerificationError);
    return (error as GrantVerificationError).reason;
  };

  it("rules/interface C rule 3: accepts a valid grant; its claims match an independent node:crypto check of the EdDSA signature", async () => {
    const { set, client, binding, appId } = await setup();
    await set("alice", { capabilities: ["read", "write"] });
    const grant = await grantFor(client(), "alice");
    const verifier = createGrantVerifier({
      jwksUri: jwksUri(),
      issuer: issuer(),
      audience: binding.audience,
      bindingId: binding.id,
      now,
    });
    const verified = await verifier.verify(grant);
    expect(verified).toMatchObject({
      actorId: "alice",
      tenantId: tenant.id,
      appId,
      bindingId: binding.id,
      capabilities: ["read", "write"],
      audience: binding.audience,
    });

    // Independently: the signature over "header.payload" with the JWKS key of that kid.
    const [h, p, s] = grant.split(".") as [string, string, string];
    const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as { kid: string; typ: string };
    const jwks = (await (await fetch(jwksUri())).json()) as Jwks;
    const jwk = jwks.keys.find((k) => k.kid === header.kid);
    expect(jwk).toBeDefined();
    const key = createPublicKey({ key: jwk as never, format: "jwk" });
    expect(verifySignature(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, "base64url"))).toBe(true);
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Record<string, unknown>;
    expect(verified.keyId).toBe(header.kid);
    expect(header.typ).toBe("entitlement-grant+jwt");
    expect(verified.actorId).toBe(claims.sub);
    expect(verified.bindingId).toBe(claims.binding);
    expect(verified.sequence).toBe(claims.seq);
    expect(verified.grantId).toBe(claims.jti);
    expect(verified.expiresAt.getTime()).toBe((claims.exp as number) * 1000);
    expect(claims.aud).toBe(binding.audience);
    expect(claims.iss).toBe(issuer());
  });

  it("rules/interface C rule 3: an expired grant, one not yet valid, another binding's, another audience, another issuer and a tampered one are refused", async () => {
    const shared = `shared-${counter}`;
    const a = await setup({ audience: shared });
    const b = await setup({ audience: shared });
    await a.set("bob");
    const grant = await grantFor(a.client(), "bob");
    const verifier = (over: Partial<Parameters<typeof createGrantVerifier>[0]> = {}) =>
      createGrantVerifier({
        jwksUri: jwksUri(),
        issuer: issuer(),
        audience: a.binding.audience,
        bindingId: a.binding.id,
        now,
        ...over,
      });
    expect((await verifier().verify(grant)).actorId).toBe("bob");
    // Another binding with the same audience: only the binding claim tells them apart.
    expect(await refusal(verifier({ bindingId: b.binding.id }).verify(grant))).toBe("binding");
    expect(await refusal(verifier({ audience: "someone-else" }).verify(grant))).toBe("audience");
    expect(await refusal(verifier({ issuer: "https://evil.example" }).verify(grant))).toBe("issuer");
    const at = clock.now().getTime();
    expect(await refusal(verifier({ now: () => new Date(at + 121_000) }).verify(grant))).toBe("expired");
    expect(await refusal(verifier({ now: () => new Date(at - 60_000) }).verify(grant))).toBe("not-yet-valid");
    const [h, p, s] = grant.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, binding: b.binding.id })).toString("base64url");
    expect(await refusal(verifier({ bindingId: b.binding.id }).verify(`${h}.${forged}.${s}`))).toBe(
      "signature",
    );
    // One bit of the signature flipped (swapping its last characters for fixed ones would leave
    // it unchanged about once in 256 runs).
    const tampered = Buffer.from(s, "base64url");
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    expect(await refusal(verifier().verify(`${h}.${p}.${tampered.toString("base64url")}`))).toBe("signature");
    expect(await refusal(verifier().verify("not a grant"))).toBe("malformed");
    // The refusal never repeats the grant.
    const error = (await verifier({ bindingId: b.binding.id })
      .verify(grant)
      .catch((e: unknown) => e)) as Error;
    expect(`${error.message} ${String(error.stack)}`).not.toContain(grant);
  });

  it("rules/interface C rule 3: an unknown kid is refused after one refetch; refetches wait for the cooldown", async () => {
    const { binding } = await setup();
    const { privateKey } = generateKeyPairSync("ed25519");
    const foreign = await new SignJWT({
      binding: binding.id,
      tenant: tenant.id,
      app: "x",
      capabilities: [],
      seq: 1,
    })
      .setProtectedHeader({ alg: "EdDSA", kid: "not-published", typ: "entitlement-grant+jwt" })
      .setIssuer(issuer())
      .setAudience(binding.audience)
      .setSubject("mallory")
      .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
      .setNotBefore(Math.floor(clock.now().getTime() / 1000))
      .setExpirationTime(Math.floor(clock.now().getTime() / 1000) + 60)
      .setJti("j1")
      .sign(privateKey);
    const { state, fetchJwks } = counted();
    let at = clock.now().getTime();
    const verifier = createGrantVerifier({
      jwksUri: jwksUri(),
      issuer: issuer(),
      audience: binding.audience,
      bindingId: binding.id,
      fetchJwks,
      cooldownMs: 30_000,
      now: () => new Date(at),
    });
    expect(await refusal(verifier.verify(foreign))).toBe("unknown-kid");
    expect(state.fetches).toBe(1);
    at += 30_000;
    expect(await refusal(verifier.verify(foreign))).toBe("unknown-kid");
    expect(state.fetches).toBe(2);
    // Within the cooldown: no further fetch, however many unknown kids arrive.
    at += 10_000;
    expect(await refusal(verifier.verify(foreign))).toBe("unknown-kid");
    expect(await refusal(verifier.verify(foreign))).toBe("unknown-kid");
    expect(state.fetches).toBe(2);
    at += 20_000;
    expect(await refusal(verifier.verify(foreign))).toBe("unknown-kid");
    expect(state.fetches).toBe(3);
    expect(verifier.jwksFetches).toBe(3);
  });

  it("a kid published after the cache was filled is found by the refetch (key rotation)", async () => {
    const { set, client, binding } = await setup();
    await set("carol");
    const { state, fetchJwks } = counted();
    let served: Jwks = { keys: [] };
    const verifier = createGrantVerifier({
      jwksUri: jwksUri(),
      issuer: issuer(),
      audience: binding.audience,
      bindingId: binding.id,
      fetchJwks: async (uri) => {
        const real = await fetchJwks(uri);
        const answer = served;
        served = real;
        return answer;
      },
      cooldownMs: 0,
      now,
    });
    // The first read is empty (as if taken before the key was published); the grant's kid makes it read again.
    const verified = await verifier.verify(await grantFor(client(), "carol"));
    expect(verified.actorId).toBe("carol");
    expect(state.fetches).toBe(2);
  });
});
