import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangesPage, FeedEntitlement, SnapshotPage } from "../support/entitlement-feed.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { protocolRuns, protocolTimeout, runCounter } from "./runs.js";

/*
 * Issue 37 item 2: the entitlement change feed (docs/protocols.md "The entitlement change feed",
 * the Spin model src/modules/entitlements/model/change-feed.pml) checked against the real server.
 * fast-check draws sequences of entitlement writes (alone or several at once) and reads — feed
 * pages from any cursor, snapshots paged with writes in between — and compares every answer with
 * a reference model: the log of changes, in sequence order, and the state it adds up to.
 */

const base = "/api/v1/public/v1/app-entitlements";
let t: TestApp;
let tenant: ProvisionedTenant;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

interface State {
  status: string;
  plan: string;
}
interface Change extends State {
  sequence: number;
  actorId: string;
}
interface Model {
  /** Every change, in sequence order: change i has sequence i + 1 (gap-free from 1). */
  log: Change[];
}
interface Real {
  appId: string;
  credential: ServiceCredential;
}
type Entitlement = FeedEntitlement;

const actors = ["actor-a", "actor-b", "actor-c", "actor-d"];
const latest = (m: Model) => m.log.length;
/** The state the first `asOf` changes add up to, by actor, in actor order. */
function stateAt(m: Model, asOf: number): Entitlement[] {
  const state = new Map<string, Entitlement>();
  for (const c of m.log.slice(0, asOf)) state.set(c.actorId, c);
  return [...state.values()]
    .sort((a, b) => (a.actorId < b.actorId ? -1 : 1))
    .map(({ actorId, status, plan, sequence }) => ({ actorId, status, plan, sequence }));
}
const essentials = (e: Entitlement) => ({
  actorId: e.actorId,
  status: e.status,
  plan: e.plan,
  sequence: e.sequence,
});

async function get<T>(r: Real, target: string): Promise<T> {
  const response = await t.inject({
    method: "GET",
    url: target,
    headers: signedHeaders(r.credential, "GET", target),
  });
  expect(response.statusCode, `${target}: ${response.body}`).toBe(200);
  return response.json<T>();
}

/** PUT of one entitlement; its sequence. */
async function write(r: Real, actorId: string, state: State): Promise<number> {
  const response = await t.inject({
    method: "PUT",
    url: `/api/v1/admin/apps/${r.appId}/entitlements/${actorId}`,
    headers: bearer(tenant.token),
    payload: { ...state, capabilities: ["use"] },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ sequence: number }>().sequence;
}

/** Several writes at once: their sequences are the next ones, each taken once, in commit order. */
class Write implements fc.AsyncCommand<Model, Real> {
  constructor(readonly writes: readonly { actor: number; state: State }[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const sequences = await Promise.all(this.writes.map((w) => write(r, actors[w.actor] ?? "", w.state)));
    const from = latest(m);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences.map((_, i) => from + i + 1));
    const changes = this.writes.map((w, i) => ({
      actorId: actors[w.actor] ?? "",
      ...w.state,
      sequence: sequences[i] ?? 0,
    }));
    m.log.push(...changes.sort((a, b) => a.sequence - b.sequence));
    // Each write's answer is what its actor's entitlement was at its sequence: the server
    // applied the writes in sequence order.
    const current = await get<ChangesPage>(r, `${base}/service/changes?afterSequence=${from}&limit=1000`);
    expect(current.items.map((c) => ({ sequence: c.sequence, actorId: c.actorId }))).toEqual(
      m.log.slice(from).map((c) => ({ sequence: c.sequence, actorId: c.actorId })),
    );
  }
  toString = () =>
    `write(${this.writes.map((w) => `${actors[w.actor]}=${w.state.status}/${w.state.plan}`).join(", ")}${this.writes.length > 1 ? " at once" : ""})`;
}

/** One feed page from a cursor at or below the latest sequence. */
class ReadFeed implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly back: number,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const after = Math.max(0, latest(m) - this.back);
    const page = await get<ChangesPage>(
      r,
      `${base}/service/changes?afterSequence=${after}&limit=${this.limit}`,
    );
    const expected = m.log.slice(after, after + this.limit);
    // Gap-free and strictly increasing, exactly the changes after the cursor.
    expect(
      page.items.map((c) => ({
        sequence: c.sequence,
        actorId: c.actorId,
        ...(c.entitlement ? { status: c.entitlement.status, plan: c.entitlement.plan } : {}),
      })),
    ).toEqual(
      expected.map((c) => ({ sequence: c.sequence, actorId: c.actorId, status: c.status, plan: c.plan })),
    );
    for (const c of page.items) expect(c.entitlement?.sequence).toBe(c.sequence);
    expect(page.meta).toEqual({
      hasMore: after + this.limit < latest(m),
      lastSequence: expected.at(-1)?.sequence ?? after,
      latestSequence: latest(m),
    });
  }
  toString = () => `feed(after latest−${this.back}, limit ${this.limit})`;
}

/**
 * A mirror's start: a snapshot, paged (with writes between its pages), at its asOfSequence, then
 * the feed after it: together they are the current state.
 */
class SnapshotAndFeed implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly between: readonly { actor: number; state: State }[],
    readonly limit: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    let page = await get<SnapshotPage>(r, `${base}/service/snapshot?limit=${this.limit}`);
    const asOf = page.asOfSequence;
    expect(asOf).toBe(latest(m));
    const items = [...page.items];
    let pending = [...this.between];
    while (page.meta.nextCursor) {
      const next = pending.shift();
      if (next) await new Write([next]).run(m, r);
      page = await get<SnapshotPage>(
        r,
        `${base}/service/snapshot?limit=${this.limit}&asOfSequence=${asOf}&cursor=${page.meta.nextCursor}`,
      );
      expect(page.asOfSequence).toBe(asOf);
      items.push(...page.items);
    }
    for (const next of pending) await new Write([next]).run(m, r);
    pending = [];
    expect(items.map(essentials)).toEqual(stateAt(m, asOf));
    // The feed after asOfSequence brings the snapshot to the current state.
    const mirror = new Map(items.map((e) => [e.actorId, essentials(e)]));
    let after = asOf;
    for (;;) {
      const feed = await get<ChangesPage>(r, `${base}/service/changes?afterSequence=${after}&limit=2`);
      for (const c of feed.items) {
        expect(c.sequence, "no gap, no repeat").toBe(after + 1);
        after = c.sequence;
        if (c.entitlement) mirror.set(c.actorId, essentials(c.entitlement));
        else mirror.delete(c.actorId);
      }
      if (!feed.meta.hasMore) break;
    }
    expect([...mirror.values()].sort((a, b) => (a.actorId < b.actorId ? -1 : 1))).toEqual(
      stateAt(m, latest(m)),
    );
  }
  toString = () => `snapshot(limit ${this.limit}, ${this.between.length} writes between pages) + feed`;
}

const oneWrite = fc.record({
  actor: fc.nat({ max: actors.length - 1 }),
  state: fc.record({
    status: fc.constantFrom("active", "revoked"),
    plan: fc.constantFrom("basic", "pro"),
  }),
});
const commands = fc.commands(
  [
    fc.array(oneWrite, { minLength: 1, maxLength: 3 }).map((w) => new Write(w)),
    fc.tuple(fc.nat({ max: 6 }), fc.integer({ min: 1, max: 4 })).map(([b, l]) => new ReadFeed(b, l)),
    fc
      .tuple(fc.array(oneWrite, { maxLength: 2 }), fc.integer({ min: 1, max: 3 }))
      .map(([w, l]) => new SnapshotAndFeed(w, l)),
  ],
  { maxCommands: 15 },
);

describe("the entitlement change feed against its model (docs/protocols.md)", () => {
  it(
    "random writes (also at once), feed pages from any cursor, snapshots with writes between their pages: gap-free, increasing, snapshot plus feed is the state",
    async () => {
      const runs = runCounter("entitlement feed");
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          runs.tick();
          const appId = `protocol-feed-${counter++}`;
          const headers = bearer(tenant.token);
          const app = await t.inject({
            method: "POST",
            url: "/api/v1/admin/apps",
            headers,
            payload: { id: appId, name: appId, capabilities: ["use"] },
          });
          expect(app.statusCode, app.body).toBe(201);
          const binding = await t.inject({
            method: "POST",
            url: "/api/v1/admin/service-bindings",
            headers,
            payload: { appId, audience: `aud-${appId}`, requiredCapabilities: [] },
          });
          expect(binding.statusCode, binding.body).toBe(201);
          const real: Real = { appId, credential: binding.json<ServiceCredential>() };
          await fc.asyncModelRun(() => ({ model: { log: [] }, real }), cmds);
        }),
        protocolRuns(25),
      );
      runs.report();
    },
    protocolTimeout(),
  );
});
