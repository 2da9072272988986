// remote mode: in-process only: a fake clock and settings of its own
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { signWebhook } from "@hanse/client/protocol";
import {
  EntitlementMirror,
  FeedSequenceError,
  createMemoryStorage,
  createWebhookReceiver,
  type ChangesPage,
  type Entitlement,
  type EntitlementMirrorOptions,
  type MirrorEvent,
  type MirrorState,
  type ServiceClient,
  type WebhookOutcome,
} from "@hanse/client";
import { createEntitlementApp, provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { startInterceptingProxy } from "../support/intercepting-proxy.js";
import { bearer, createTestApp, runJobNow, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

const clock = createManualClock(new Date());
const now = () => clock.now();
let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let stateDir: string;
let counter = 0;

/** An app with a binding that requires `read`, and helpers to change it and to mirror it. */
async function setup() {
  const app = await createEntitlementApp(t, tenant.token, { appId: `mirror-${counter++}` });
  const { appId, binding, set } = app;
  const client = (url = baseUrl) => app.client(url, { now });
  const events: MirrorEvent[] = [];
  const mirror = (options: Partial<EntitlementMirrorOptions> = {}) =>
    new EntitlementMirror({
      client: client(),
      appId,
      requiredCapabilities: ["read"],
      now,
      random: () => 0,
      pollIntervalMs: 3_600_000,
      onEvent: (event) => events.push(event),
      ...options,
    });
  const of = <T extends MirrorEvent["type"]>(type: T) =>
    events.filter((e): e is Extract<MirrorEvent, { type: T }> => e.type === type);
  return { appId, binding, set, client, mirror, events, of };
}

const stateOf = (
  e: Pick<Entitlement, "status" | "plan" | "capabilities" | "validFrom" | "validUntil" | "sequence">,
) => ({
  status: e.status,
  plan: e.plan,
  capabilities: e.capabilities,
  validFrom: e.validFrom,
  validUntil: e.validUntil,
  sequence: e.sequence,
});

/** Every actor decides on the mirror as introspection decides on the server, from the same entitlement. */
async function expectConverged(mirror: EntitlementMirror, client: ServiceClient, actors: Iterable<string>) {
  for (const actor of actors) {
    const server = await client.introspect(actor);
    expect(mirror.isEntitled(actor), actor).toBe(server.entitled);
    const local = mirror.get(actor);
    expect(local && stateOf(local), actor).toEqual(
      server.status === null ? undefined : stateOf(server as never),
    );
  }
}

const runHousekeeping = () => runJobNow(t, "entitlements.housekeeping");

/** A proxy that drops the change `drop.sequence` (when set) from every feed page it passes on. */
async function gapProxy(drop: { sequence?: number | undefined }) {
  return startInterceptingProxy(baseUrl, ({ path, upstream }) => {
    if (!path.includes("/service/changes") || drop.sequence === undefined || upstream.status !== 200)
      return "pass";
    const page = JSON.parse(upstream.body) as ChangesPage;
    const items = page.items.filter((c) => c.sequence !== drop.sequence);
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...page, items }),
    };
  });
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: {
      HANSE_FEED_RETENTION_SECONDS: "60",
      ...webhookReceiverEnv(receiver),
    },
  });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  stateDir = await mkdtemp(join(tmpdir(), "hanse-mirror-"));
});
beforeEach(() => {
  // Child processes sign with the system clock: keep the server's close to it.
  clock.set(new Date());
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await rm(stateDir, { recursive: true, force: true });
});

describe("EntitlementMirror (issue 22 item 3, rules/interface C rules 1-2)", () => {
  it("issue 22: the mirror converges to the server's state under concurrent writes", async () => {
    const { set, client, mirror, of } = await setup();
    const actors = Array.from({ length: 12 }, (_, i) => `actor-${i}`);
    for (const actor of actors.slice(0, 6)) await set(actor);
    const local = mirror({ pollIntervalMs: 5, snapshotLimit: 4, changesLimit: 7 });
    await local.start();
    const at = (hours: number) => new Date(now().getTime() + hours * 3_600_000).toISOString();
    const since = { validFrom: at(-2) };
    const variants = [
      { status: "active", capabilities: ["read"], ...since },
      { status: "suspended", capabilities: ["read"], ...since },
      { status: "active", capabilities: ["write"], ...since },
      { status: "revoked", capabilities: ["read", "write"], ...since },
      { status: "active", capabilities: ["read", "write"], ...since, validUntil: at(-1) },
      { status: "active", capabilities: ["read"], validFrom: at(1) },
      { status: "active", capabilities: ["read", "write"], ...since, validUntil: at(1) },
    ];
    // Four writers at once; some wake the mirror, the follow loop polls meanwhile.
    await Promise.all(
      [0, 1, 2, 3].map(async (writer) => {
        for (let i = 0; i < 25; i++) {
          const actor = actors[(writer * 5 + i * 7) % actors.length] as string;
          await set(actor, { plan: `w${writer}-${i}`, ...variants[(writer + i) % variants.length] });
          if (i % 5 === writer) void local.wake();
        }
      }),
    );
    const latest = await local.sync();
    expect(latest).toBe(106);
    await local.stop();
    await expectConverged(local, client(), actors);
    // Every change was applied once, in order: the applied ranges follow each other from the snapshot on.
    const [snapshot] = of("snapshot");
    let next = (snapshot?.asOfSequence ?? -1) + 1;
    for (const applied of of("applied")) {
      expect(applied.fromSequence).toBe(next);
      next = applied.toSequence + 1;
    }
    expect(next - 1).toBe(latest);
    expect(of("snapshot")).toHaveLength(1);
    expect([...of("defect"), ...of("resnapshot"), ...of("error")]).toEqual([]);
  });

  it("rules/interface C rule 2, issue 22: after a 410 the projection is discarded at once and rebuilt from a new snapshot, with jittered exponential backoff", async () => {
    const { set, client, mirror, of } = await setup();
    await set("x");
    await set("y", { status: "suspended" });
    const storage = createMemoryStorage();
    // Two snapshot requests after the real 410 are answered 410 too (asOfSequence pruned meanwhile).
    let expiredSnapshots = 0;
    const proxy = await startInterceptingProxy(baseUrl, ({ path }) =>
      path.includes("/service/snapshot") && expiredSnapshots > 0 && expiredSnapshots-- > 0
        ? {
            status: 410,
            headers: { "content-type": "application/problem+json" },
            body: JSON.stringify({ code: "ERR_APP_ENTITLEMENT_CURSOR_EXPIRED", detail: "pruned" }),
          }
        : "pass",
    );
    const duringResnapshot: unknown[] = [];
    const local = mirror({
      client: client(proxy.url),
      storage,
      random: () => 0.5,
      backoff: { initialMs: 40, maxMs: 1000 },
    });
    local.on((event) => {
      if (event.type === "resnapshot") {
        duringResnapshot.push({ ready: local.ready, x: local.decide("x"), stored: storage.state });
      }
    });
    try {
      expect(await local.sync()).toBe(2);
      expect(local.isEntitled("x")).toBe(true);
      expect(storage.state?.sequence).toBe(2);

      clock.advance(120_000);
      await set("x", { status: "revoked" });
      await set("z");
      clock.advance(120_000);
      await set("y");
      await runHousekeeping();
      expiredSnapshots = 2;
      expect(await local.sync()).toBe(5);
    } finally {
      await proxy.close();
    }
    expect(of("resnapshot")).toEqual([
      { type: "resnapshot", reason: "cursor-expired", attempt: 1, delayMs: 20 },
      { type: "resnapshot", reason: "cursor-expired", attempt: 2, delayMs: 40 },
      { type: "resnapshot", reason: "cursor-expired", attempt: 3, delayMs: 80 },
    ]);
    // Fail closed from the 410 on: nothing answered from, nothing kept in storage.
    expect(duringResnapshot[0]).toEqual({
      ready: false,
      x: { entitled: false, reason: "unknown" },
      stored: undefined,
    });
    expect(of("snapshot").map((e) => [e.reason, e.asOfSequence])).toEqual([
      ["initial", 2],
      ["cursor-expired", 5],
    ]);
    await expectConverged(local, client(), ["x", "y", "z"]);
    expect(storage.state?.sequence).toBe(5);
    expect(local.size).toBe(3);
  });

  it("issue 22: an injected gap is reported as a defect; with onDefect halt nothing past it is applied until resnapshot()", async () => {
    const { set, client, mirror, of } = await setup();
    for (const actor of ["a", "b", "c", "d", "e"]) await set(actor);
    const drop: { sequence?: number } = {};
    const proxy = await gapProxy(drop);
    const local = mirror({ client: client(proxy.url), onDefect: "halt" });
    try {
      expect(await local.sync()).toBe(5);
      for (const actor of ["f", "g", "h", "i", "j"]) await set(actor);
      drop.sequence = 8;
      const failure = await local.sync().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FeedSequenceError);
      expect(of("defect")).toEqual([{ type: "defect", kind: "gap", expected: 8, actual: 9, policy: "halt" }]);
      expect(local.halted).toBe(failure);
      // The page with the gap was not applied at all; the state is the last consistent one.
      expect(local.sequence).toBe(5);
      expect(local.get("f")).toBeUndefined();
      expect(local.get("i")).toBeUndefined();
      expect(local.isEntitled("a")).toBe(true);
      // Halted: a wake-up reads nothing, sync() repeats the defect.
      const requests = proxy.exchanges.length;
      expect(await local.wake()).toBe(5);
      await expect(local.sync()).rejects.toBe(failure);
      expect(proxy.exchanges.length).toBe(requests);

      drop.sequence = undefined;
      expect(await local.resnapshot()).toBe(10);
      expect(local.halted).toBeUndefined();
      expect(of("snapshot").map((e) => e.reason)).toEqual(["initial", "requested"]);
      await expectConverged(local, client(), ["a", "e", "f", "h", "i", "j"]);
    } finally {
      await proxy.close();
    }
  });

  it("issue 22: with the default policy a gap is reported, nothing past it applied, and the mirror re-snapshots", async () => {
    const { set, client, mirror, of, events } = await setup();
    for (const actor of ["a", "b", "c"]) await set(actor);
    const drop: { sequence?: number } = {};
    const proxy = await gapProxy(drop);
    const local = mirror({ client: client(proxy.url), changesLimit: 2 });
    try {
      expect(await local.sync()).toBe(3);
      for (const actor of ["d", "e", "f", "g", "h"]) await set(actor, { plan: "late" });
      drop.sequence = 6;
      expect(await local.sync()).toBe(8);
    } finally {
      await proxy.close();
    }
    expect(events.map((e) => e.type)).toEqual([
      "snapshot",
      "caught-up",
      "applied",
      "defect",
      "resnapshot",
      "snapshot",
      "caught-up",
    ]);
    expect(of("applied")).toEqual([{ type: "applied", fromSequence: 4, toSequence: 5, count: 2 }]);
    expect(of("defect")).toEqual([
      { type: "defect", kind: "gap", expected: 6, actual: 7, policy: "resnapshot" },
    ]);
    expect(of("resnapshot")).toEqual([{ type: "resnapshot", reason: "defect", attempt: 1, delayMs: 0 }]);
    expect(of("snapshot").at(-1)).toMatchObject({ reason: "defect", asOfSequence: 8 });
    await expectConverged(local, client(), ["a", "d", "f", "g", "h"]);
  });

  it("issue 22: a repeated sequence from a client that does not check the feed is a defect of the mirror's own check", async () => {
    const { set, client, mirror, of } = await setup();
    await set("a");
    const real = client();
    let repeat = false;
    const careless: ServiceClient = {
      ...real,
      async *changes(query) {
        for await (const page of real.changes(query)) {
          const last = page.items.at(-1);
          yield repeat && last ? { ...page, items: [...page.items, last] } : page;
        }
      },
    };
    const local = mirror({ client: careless, onDefect: "halt" });
    expect(await local.sync()).toBe(1);
    await set("b");
    await set("c");
    repeat = true;
    await expect(local.sync()).rejects.toBeInstanceOf(FeedSequenceError);
    expect(of("defect")).toEqual([
      { type: "defect", kind: "repeat", expected: 4, actual: 3, policy: "halt" },
    ]);
    expect(local.sequence).toBe(1);
    expect(local.get("b")).toBeUndefined();
  });

  it("issue 22: a stored state of another server or app is refused at start, naming both", async () => {
    const { mirror } = await setup();
    const state: MirrorState = {
      version: 1,
      server: "http://elsewhere.example",
      appId: null,
      asOfSequence: 0,
      sequence: 0,
      savedAt: new Date().toISOString(),
      entitlements: [],
    };
    await expect(mirror({ storage: createMemoryStorage(state) }).start()).rejects.toThrow(
      `the stored mirror state belongs to http://elsewhere.example, not ${baseUrl}`,
    );
    const otherApp = { ...state, server: baseUrl, appId: "another-app" };
    await expect(mirror({ storage: createMemoryStorage(otherApp) }).start()).rejects.toThrow(
      /the stored mirror state is of app another-app, not mirror-/,
    );
  });
});

interface MirrorProcess {
  child: ChildProcess;
  url: string;
  events: Record<string, unknown>[];
  waitFor(what: string, predicate: (event: Record<string, unknown>) => boolean): Promise<void>;
}

/** examples/entitlement-sync as a real process (what an integrator runs), JSON lines read from stdout. */
async function startMirrorProcess(env: Record<string, string>): Promise<MirrorProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/entitlement-sync/main.ts"], {
    env: { ...process.env, PORT: "0", MIRROR_POLL_MS: "20", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events: Record<string, unknown>[] = [];
  let output = "";
  let partial = "";
  child.stdout.on("data", (data: Buffer) => {
    partial += data.toString("utf8");
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) events.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr.on("data", (data: Buffer) => (output += data.toString("utf8")));
  const waitFor = (what: string, predicate: (event: Record<string, unknown>) => boolean) =>
    waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`the mirror process exited: ${output}`);
        return events.some(predicate);
      },
      { what, timeoutMs: 30_000, intervalMs: 20 },
    );
  await waitFor("the mirror process listening", (e) => e.event === "listening");
  const port = events.find((e) => e.event === "listening")?.port as number;
  return { child, url: `http://127.0.0.1:${port}`, events, waitFor };
}

async function kill(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  await exited;
}

describe("EntitlementMirror in a process of its own (issue 22)", () => {
  it("issue 22: killed with SIGKILL mid-way, a new process resumes from the JSON file without a snapshot and converges", async () => {
    const { appId, binding, set, client } = await setup();
    const actors = Array.from({ length: 10 }, (_, i) => `p-${i}`);
    for (const actor of actors) await set(actor);
    const file = join(stateDir, `${appId}.json`);
    const env = {
      HANSE_URL: baseUrl,
      HANSE_SERVICE_CREDENTIAL_ID: binding.credentialId,
      HANSE_SERVICE_SECRET: binding.secret,
      HANSE_APP_ID: appId,
      REQUIRED_CAPABILITIES: "read",
      MIRROR_STATE_FILE: file,
    };
    const first = await startMirrorProcess(env);
    try {
      await first.waitFor("the first snapshot", (e) => e.event === "snapshot" && e.asOfSequence === 10);
      // Writes go on while the process follows; it is killed once it applied some of them.
      const write = async (i: number) => {
        await set(actors[i % actors.length] as string, {
          plan: `round-${i}`,
          status: i % 3 === 0 ? "suspended" : "active",
        });
      };
      const writes = (async () => {
        for (let i = 0; i < 30; i++) await write(i);
      })();
      await first.waitFor("changes applied", (e) => e.event === "applied" && (e.toSequence as number) >= 20);
      await kill(first.child, "SIGKILL");
      await writes;
      // And some after the kill, so the next process certainly has changes to resume with.
      for (let i = 30; i < 40; i++) await write(i);
    } finally {
      await kill(first.child, "SIGKILL");
    }
    expect(first.child.signalCode).toBe("SIGKILL");
    const saved = JSON.parse(await readFile(file, "utf8")) as MirrorState;
    expect(saved.sequence).toBeGreaterThanOrEqual(20);
    expect(saved.sequence).toBeLessThanOrEqual(40);
    expect(saved.appId).toBe(appId);

    const second = await startMirrorProcess(env);
    try {
      await second.waitFor("caught up with the feed", (e) => e.event === "caught-up" && e.sequence === 50);
      expect(second.events[0]).toMatchObject({ event: "loaded", sequence: saved.sequence });
      expect(second.events.filter((e) => e.event === "snapshot")).toEqual([]);
      expect(second.events.find((e) => e.event === "applied")).toMatchObject({
        fromSequence: saved.sequence + 1,
      });
      const service = client();
      for (const actor of actors) {
        const answer = (await (await fetch(`${second.url}/check?actor=${actor}`)).json()) as Record<
          string,
          unknown
        >;
        const server = await service.introspect(actor);
        expect(answer, actor).toMatchObject({
          actorId: actor,
          entitled: server.entitled,
          sequence: 50,
          ready: true,
        });
      }
    } finally {
      await kill(second.child, "SIGTERM");
    }
    expect(second.child.exitCode).toBe(0);
  }, 90_000);
});

describe("webhook receiver helper (issue 22 item 3, rules/interface C rule 5)", () => {
  /** A subscription of a new binding to the local HTTPS receiver at `path`. */
  async function subscribed(path: string) {
    const fixture = await setup();
    const created = await t.inject({
      method: "POST",
      url: "/api/v1/admin/webhook-subscriptions",
      headers: bearer(tenant.token),
      payload: { bindingId: fixture.binding.id, url: receiver.url.replace("/hooks", path) },
    });
    expect(created.statusCode).toBe(201);
    return {
      ...fixture,
      secret: created.json<{ secret: string }>().secret,
      delivered: () => receiver.received.filter((r) => r.url === path),
    };
  }
  const seconds = () => Math.floor(now().getTime() / 1000);

  it("issue 22: a delivery from the real server wakes the mirror, which takes the change from the feed", async () => {
    const { set, mirror, secret, client, delivered } = await subscribed("/wake");
    const local = mirror();
    await local.start();
    await waitUntil(async () => local.ready, { what: "the first snapshot" });
    const outcomes: WebhookOutcome[] = [];
    const hooks = createWebhookReceiver({
      secrets: secret,
      mirror: local,
      now,
      onDelivery: (o) => outcomes.push(o),
    });
    receiver.answer = (request) => ({
      status: hooks.handle({ headers: request.headers, rawBody: request.body }).status,
    });
    try {
      const sequence = await set("alice", { capabilities: ["read", "write"] });
      await t.drainJobs();
      expect(delivered()).toHaveLength(1);
      // The loop polls once an hour: only the delivery can have made it read the feed.
      await waitUntil(async () => local.sequence === sequence, { what: "the mirror woken by the delivery" });
      expect(outcomes).toEqual(["accepted"]);
      expect(local.isEntitled("alice", "write")).toBe(true);

      // A signed delivery that names an actor and a sequence the feed does not have grants nothing.
      const body = JSON.stringify({
        eventId: "forged",
        type: "entitlement.changed",
        sequence: 99,
        actorId: "mallory",
      });
      const forged = hooks.handle({
        headers: {
          "webhook-id": "msg_forged",
          "webhook-timestamp": String(seconds()),
          "webhook-signature": signWebhook(secret, "msg_forged", seconds(), body),
        },
        rawBody: body,
      });
      expect(forged.status).toBe(200);
      expect(await local.sync()).toBe(sequence);
      expect(local.isEntitled("mallory")).toBe(false);
      await expectConverged(local, client(), ["alice", "mallory"]);

      // The same delivery again (a retry): acknowledged, and the change is already applied.
      const again = hooks.handle({
        headers: (delivered()[0] as ReceivedRequest).headers,
        rawBody: delivered()[0]?.body ?? "",
      });
      expect([again.status, JSON.parse(again.body)]).toEqual([200, { status: "duplicate" }]);
    } finally {
      receiver.answer = () => ({ status: 204 });
      await local.stop();
    }
  });

  it("issue 22: a duplicate webhook-id is acknowledged but wakes once; an applied sequence does not wake", async () => {
    const { set, secret, delivered } = await subscribed("/dup");
    await set("bob");
    await t.drainJobs();
    const [delivery] = delivered();
    if (!delivery) throw new Error("no delivery");
    let wakes = 0;
    const mirrored: { sequence?: number } = {};
    const hooks = createWebhookReceiver({
      secrets: ["whsec_" + Buffer.from("an older secret").toString("base64"), secret],
      mirror: {
        wake: async () => ++wakes,
        get sequence() {
          return mirrored.sequence;
        },
      },
      now,
    });
    const request = { headers: delivery.headers, rawBody: delivery.body };
    expect(JSON.parse(hooks.handle(request).body)).toEqual({ status: "accepted" });
    const duplicate = hooks.handle(request);
    expect([duplicate.status, JSON.parse(duplicate.body)]).toEqual([200, { status: "duplicate" }]);
    expect(wakes).toBe(1);
    // Another delivery of a change the mirror has: acknowledged without a wake-up.
    mirrored.sequence = 1;
    const id = "msg_other";
    const resent = hooks.handle({
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(seconds()),
        "webhook-signature": signWebhook(secret, id, seconds(), delivery.body),
      },
      rawBody: delivery.body,
    });
    expect([resent.status, JSON.parse(resent.body)]).toEqual([200, { status: "already-applied" }]);
    expect(wakes).toBe(1);
  });

  it("issue 22: bad or missing signature 401, stale timestamp and malformed headers 400, none of them wakes", async () => {
    const { set, secret, delivered } = await subscribed("/bad");
    await set("carol");
    await t.drainJobs();
    const [delivery] = delivered();
    if (!delivery) throw new Error("no delivery");
    let wakes = 0;
    const hooks = createWebhookReceiver({ secrets: secret, mirror: { wake: async () => ++wakes }, now });
    const headers = delivery.headers as Record<string, string>;
    const answer = (h: Record<string, string | undefined>, body = delivery.body) => {
      const reply = hooks.handle({ headers: h, rawBody: body });
      return [reply.status, JSON.parse(reply.body) as unknown];
    };
    const otherSecret = "whsec_" + Buffer.from("not the subscription's secret").toString("base64");
    expect(answer(headers, delivery.body.replace("carol", "carl"))).toEqual([
      401,
      { error: "bad-signature" },
    ]);
    expect(answer(headers, `${delivery.body} `)).toEqual([401, { error: "bad-signature" }]);
    const id = headers["webhook-id"] as string;
    const ts = Number(headers["webhook-timestamp"]);
    expect(
      answer({ ...headers, "webhook-signature": signWebhook(otherSecret, id, ts, delivery.body) }),
    ).toEqual([401, { error: "bad-signature" }]);
    expect(answer({ ...headers, "webhook-signature": undefined })).toEqual([
      401,
      { error: "missing-signature" },
    ]);
    const stale = seconds() - 600;
    expect(
      answer({
        ...headers,
        "webhook-timestamp": String(stale),
        "webhook-signature": signWebhook(secret, id, stale, delivery.body),
      }),
    ).toEqual([400, { error: "stale-timestamp" }]);
    expect(answer({ ...headers, "webhook-timestamp": "soon" })).toEqual([
      400,
      { error: "malformed-headers" },
    ]);
    expect(answer({ ...headers, "webhook-id": undefined })).toEqual([400, { error: "malformed-headers" }]);
    expect(wakes).toBe(0);
    // Refusals remember nothing: the genuine delivery is still accepted.
    expect(answer(headers)).toEqual([200, { status: "accepted" }]);
    expect(wakes).toBe(1);
  });

  it("issue 22: the node:http adapter reads the raw body and answers as the core does", async () => {
    const secret = "whsec_" + Buffer.from("adapter test secret, 32 bytes..").toString("base64");
    let wakes = 0;
    const hooks = createWebhookReceiver({
      secrets: secret,
      mirror: { wake: async () => ++wakes },
      maxBodyBytes: 1024,
    });
    const server: Server = createServer(hooks.node);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/hanse`;
    const post = (body: string, id = "msg_1", signWith = secret) => {
      const ts = Math.floor(Date.now() / 1000);
      return fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(ts),
          "webhook-signature": signWebhook(signWith, id, ts, body),
        },
        body,
      });
    };
    try {
      // Bytes as received: JSON with unusual spacing and non-ASCII text verifies as sent.
      const body = '{ "sequence" : 1, "actorId":"zoë" }';
      const ok = await post(body);
      expect([ok.status, await ok.json()]).toEqual([200, { status: "accepted" }]);
      expect((await post(body)).status).toBe(200);
      expect(wakes).toBe(1);
      expect((await post(body, "msg_2", `${secret.slice(0, -4)}AAA=`)).status).toBe(401);
      const large = await post(JSON.stringify({ padding: "x".repeat(2048) }), "msg_3");
      expect([large.status, await large.json()]).toEqual([413, { error: "body-too-large" }]);
      const get = await fetch(url);
      expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
      expect(wakes).toBe(1);
    } finally {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
  });
});
