// remote mode: in-process only: a manual clock, HANSE_MAILBOX_MAX_ATTEMPTS and session lifetimes of its own
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acknowledge,
  claim,
  listMailbox,
  ordersMessage,
  readPayload,
  setupPartner,
  upload,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import type { Delivery } from "@hanse/client";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { protocolRuns, protocolTimeout, runCounter } from "./runs.js";

/*
 * Issue 37 item 2: the mailbox protocol (docs/protocols.md "The mailbox", the Spin model
 * src/modules/exchange/mailbox/model/mailbox.pml) checked against the real server. fast-check
 * draws sequences of partner and operator operations — list, claim (alone or several at once),
 * payload read and acknowledgement with the current, an earlier or a forged claim token, the clock
 * moving on past leases and backoffs, an operator's re-send and requeue — sends each over HTTP and
 * compares every answer with a small reference model; after each command every delivery of the
 * connection, as the operator sees it, must be where the model says it is.
 */

const maxAttempts = 2;
const leaseMs = 300_000;
const backoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 900_000);

const clock = createManualClock(new Date("2026-11-29T08:00:00.000Z"));
let t: TestApp;
let tenant: ProvisionedTenant;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: {
      HANSE_MAILBOX_MAX_ATTEMPTS: String(maxAttempts),
      // The clock runs hours ahead in every run: the administrator's session must outlast them all.
      HANSE_SESSION_TTL_SECONDS: String(100 * 365 * 86_400),
      HANSE_SESSION_IDLE_SECONDS: String(100 * 365 * 86_400),
    },
  });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

type Status = "ready" | "claimed" | "acknowledged" | "failed";
interface ModelDelivery {
  id: string;
  status: Status;
  attempts: number;
  dueAt: number;
  leaseEnd: number | null;
  /** The token of the running lease, or of the lease that acknowledged; else null. */
  token: string | null;
  /** Every token a claim of this delivery handed out, in order. */
  tokens: string[];
  verified: boolean;
  receipt: { receiptId: string; acknowledgedAt: string } | null;
}
interface Model {
  now: number;
  deliveries: ModelDelivery[];
}
interface Real {
  partner: PartnerSetup;
}

/** Leases that ran out end (rules/contract §4): due again after the backoff, or failed once the budget is spent. */
function settle(m: Model): void {
  for (const d of m.deliveries) {
    if (d.status !== "claimed" || d.leaseEnd === null || d.leaseEnd > m.now) continue;
    if (d.attempts >= maxAttempts) d.status = "failed";
    else {
      d.status = "ready";
      d.dueAt = d.leaseEnd + backoffMs(d.attempts);
    }
    d.leaseEnd = null;
    d.token = null;
    d.verified = false;
  }
}

const claimable = (m: Model, d: ModelDelivery) => d.status === "ready" && d.dueAt <= m.now;
const pick = (m: Model, i: number): ModelDelivery => {
  const d = m.deliveries[i % m.deliveries.length];
  if (!d) throw new Error("no deliveries");
  return d;
};

type TokenKind = "current" | "earlier" | "forged";
/** The token a client sends: the running (or acknowledging) lease's, an earlier lease's, or a made-up one. */
function tokenOf(d: ModelDelivery, kind: TokenKind): string {
  const earlier = d.tokens.filter((token) => token !== d.token).at(-1);
  if (kind === "current" && d.token) return d.token;
  if (kind !== "forged" && earlier) return earlier;
  return d.tokens.at(-1) ?? "F".repeat(43);
}

/** Every delivery of the connection, as the operator sees it, where the model says it is. */
async function checkAll(m: Model, r: Real): Promise<void> {
  const response = await t.inject({
    method: "GET",
    url: `/api/v1/admin/exchange-deliveries?connectionId=${r.partner.connectionId}&limit=100`,
    headers: bearer(tenant.token),
  });
  expect(response.statusCode, response.body).toBe(200);
  const items = response.json<{ items: Delivery[] }>().items;
  // Nothing pending disappears, nothing acknowledged is lost, nothing appears from nowhere.
  expect(items.map((i) => i.id).sort()).toEqual(m.deliveries.map((d) => d.id).sort());
  for (const d of m.deliveries) {
    const real = items.find((i) => i.id === d.id);
    if (!real) throw new Error(`delivery ${d.id} is gone`);
    const where = `${d.id}: model ${JSON.stringify(d)}, server ${JSON.stringify(real)}`;
    expect(real.attempts, where).toBeLessThanOrEqual(maxAttempts);
    // A lease that ran out ends lazily (on the next list or claim, or its job): until then the
    // row still says claimed, with the lease's end in the past.
    const unexpired =
      real.status === "claimed" &&
      real.leaseExpiresAt !== null &&
      Date.parse(real.leaseExpiresAt) <= m.now &&
      (d.status === "ready" || d.status === "failed");
    if (!unexpired) expect(real.status, where).toBe(d.status);
    expect(real.attempts, where).toBe(d.attempts);
    if (d.status === "acknowledged") {
      expect(real.receiptId, where).toBe(d.receipt?.receiptId);
      expect(real.acknowledgedAt, where).toBe(d.receipt?.acknowledgedAt);
    } else expect(real.receiptId, where).toBeNull();
    if (d.status === "ready" && !unexpired) expect(Date.parse(real.dueAt), where).toBe(d.dueAt);
  }
}

/** A delivery as it enters the mailbox: ready, due at `dueAt`, a fresh attempt budget. */
const newDelivery = (id: string, dueAt: number): ModelDelivery => ({
  id,
  status: "ready",
  attempts: 0,
  dueAt,
  leaseEnd: null,
  token: null,
  tokens: [],
  verified: false,
  receipt: null,
});

/** An operator's re-send or requeue of a delivery. */
const operator = (d: ModelDelivery, action: "resend" | "requeue") =>
  t.inject({
    method: "POST",
    url: `/api/v1/admin/exchange-deliveries/${d.id}/${action}`,
    headers: bearer(tenant.token),
  });

class List implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const listed = await listMailbox(t, r.partner, "?limit=100");
    expect(listed.items.map((i) => i.deliveryAttemptId)).toEqual(
      m.deliveries.filter((d) => claimable(m, d)).map((d) => d.id),
    );
    await checkAll(m, r);
  }
  toString = () => "list";
}

/** `n` claims of one delivery at once: one wins when it is claimable, none otherwise. */
class Claim implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly n: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const d = pick(m, this.index);
    const responses = await Promise.all(Array.from({ length: this.n }, () => claim(t, r.partner, d.id)));
    const won = responses.filter((x) => x.statusCode === 200);
    const lost = responses.filter((x) => x.statusCode !== 200);
    for (const x of lost) expect(x.statusCode, x.body).toBe(409);
    if (!claimable(m, d)) {
      expect(won, `delivery ${d.status}, due ${d.dueAt - m.now} ms from now`).toHaveLength(0);
    } else {
      expect(won).toHaveLength(1);
      const body = won[0]?.json<{ claimToken: string; attempt: number; expiresAt: string }>();
      if (!body) throw new Error("no claim");
      expect(body.attempt).toBe(d.attempts + 1);
      expect(Date.parse(body.expiresAt)).toBe(m.now + leaseMs);
      expect(d.tokens).not.toContain(body.claimToken);
      Object.assign(d, {
        status: "claimed",
        attempts: d.attempts + 1,
        leaseEnd: m.now + leaseMs,
        token: body.claimToken,
        verified: false,
      });
      d.tokens.push(body.claimToken);
    }
    await checkAll(m, r);
  }
  toString = () => `claim(${this.index}${this.n > 1 ? ` ×${this.n} at once` : ""})`;
}

/** A payload read or an acknowledgement of one delivery, with the token `kind` says. */
abstract class WithToken implements fc.AsyncCommand<Model, Real> {
  abstract readonly name: string;
  constructor(
    readonly index: number,
    readonly kind: TokenKind,
  ) {}
  check = () => true;
  abstract send(m: Model, r: Real, d: ModelDelivery, token: string): Promise<void>;
  async run(m: Model, r: Real) {
    const d = pick(m, this.index);
    await this.send(m, r, d, tokenOf(d, this.kind));
    await checkAll(m, r);
  }
  toString = () => `${this.name}(${this.index}, ${this.kind} token)`;
}

class ReadPayload extends WithToken {
  readonly name = "payload";
  async send(_m: Model, r: Real, d: ModelDelivery, token: string) {
    const response = await readPayload(t, r.partner, d.id, token);
    if (d.status === "claimed" && token === d.token) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.trailers["x-b2b-payload-integrity"]).toBe("verified");
      d.verified = true;
    } else {
      // A token of an earlier lease, of a lease that ran out, or made up: refused (404).
      expect(response.statusCode, `${d.status}, ${this.kind} token`).toBe(404);
    }
  }
}

class Acknowledge extends WithToken {
  readonly name = "acknowledge";
  async send(m: Model, r: Real, d: ModelDelivery, token: string) {
    const response = await acknowledge(t, r.partner, d.id, token);
    const where = `${d.status}, ${this.kind} token: ${response.body}`;
    if (token !== d.token) expect(response.statusCode, where).toBe(404);
    else if (d.status === "acknowledged") {
      // Never acknowledged twice: the holder's replay gets the same receipt.
      expect(response.statusCode, where).toBe(200);
      expect(response.json()).toEqual({ deliveryAttemptId: d.id, ...d.receipt, replay: true });
    } else if (!d.verified) {
      expect(response.statusCode, where).toBe(409);
    } else {
      expect(response.statusCode, where).toBe(200);
      const receipt = response.json<{ receiptId: string; acknowledgedAt: string; replay: boolean }>();
      expect(receipt.replay).toBe(false);
      expect(receipt.acknowledgedAt).toBe(new Date(m.now).toISOString());
      d.status = "acknowledged";
      d.receipt = { receiptId: receipt.receiptId, acknowledgedAt: receipt.acknowledgedAt };
      d.leaseEnd = null;
    }
  }
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    clock.advance(this.ms);
    m.now += this.ms;
    settle(m);
    await checkAll(m, r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

class Resend implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.deliveries.length < 8;
  async run(m: Model, r: Real) {
    const d = pick(m, this.index);
    const response = await operator(d, "resend");
    expect(response.statusCode, response.body).toBe(201);
    const resent = response.json<Delivery>();
    expect(resent).toMatchObject({ status: "ready", attempts: 0, resentFrom: d.id });
    m.deliveries.push(newDelivery(resent.id, m.now));
    await checkAll(m, r);
  }
  toString = () => `resend(${this.index})`;
}

class Requeue implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const d = pick(m, this.index);
    const response = await operator(d, "requeue");
    if (d.status === "failed") {
      expect(response.statusCode, response.body).toBe(200);
      Object.assign(d, { status: "ready", attempts: 0, dueAt: m.now, token: null, verified: false });
    } else expect(response.statusCode, `${d.status}: ${response.body}`).toBe(409);
    await checkAll(m, r);
  }
  toString = () => `requeue(${this.index})`;
}

// Claims and the clock weigh double: leases run out and attempt budgets get spent within a run.
const index = fc.nat({ max: 7 });
const tokenKind = fc.constantFrom<TokenKind>("current", "current", "earlier", "forged");
const commands = fc.commands(
  [
    fc.constant(new List()),
    fc.tuple(index, fc.constantFrom(1, 1, 2, 3)).map(([i, n]) => new Claim(i, n)),
    fc.tuple(index, fc.constantFrom(1, 1, 2, 3)).map(([i, n]) => new Claim(i, n)),
    fc.tuple(index, tokenKind).map(([i, k]) => new ReadPayload(i, k)),
    fc.tuple(index, tokenKind).map(([i, k]) => new Acknowledge(i, k)),
    fc
      .constantFrom(1_000, 29_999, 30_000, leaseMs - 1, leaseMs, leaseMs + 60_000, 900_000)
      .map((ms) => new Advance(ms)),
    fc
      .constantFrom(1_000, 29_999, 30_000, leaseMs - 1, leaseMs, leaseMs + 60_000, 900_000)
      .map((ms) => new Advance(ms)),
    index.map((i) => new Resend(i)),
    index.map((i) => new Requeue(i)),
  ],
  { maxCommands: 30 },
);

/** A new connection whose mailbox holds `n` deliveries (ORDRSP of an n-message ORDERS interchange). */
async function freshMailbox(n: number): Promise<{ model: Model; real: Real }> {
  const partner = await setupPartner(t, tenant.token);
  const ref = `P${counter++}`;
  const messages = Array.from({ length: n }, (_, i) => ordersMessage(String(i + 1), `PO-${i + 1}`)).join("");
  const interchange = `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${messages}UNZ+${n}+${ref}'`;
  const response = await upload(t, partner, interchange, `protocol-${ref}`);
  expect(response.statusCode, response.body).toBe(202);
  await t.drainJobs();
  const listed = await listMailbox(t, partner, "?limit=100");
  expect(listed.items).toHaveLength(n);
  const now = clock.now().getTime();
  return {
    model: {
      now,
      deliveries: listed.items.map((i) => newDelivery(i.deliveryAttemptId, Date.parse(i.createdAt))),
    },
    real: { partner },
  };
}

describe("the mailbox protocol against its model (docs/protocols.md)", () => {
  it(
    "random sequences of list, claims (also at once), payload reads, acknowledgements and their replays, expiring leases, re-sends and requeues",
    async () => {
      const runs = runCounter("mailbox");
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 }), commands, async (n, cmds) => {
          runs.tick();
          const start = await freshMailbox(n);
          await fc.asyncModelRun(() => start, cmds);
        }),
        protocolRuns(30),
      );
      runs.report();
    },
    protocolTimeout(),
  );
});

describe("counterexamples, replayed as fixed command sequences (issue 37 item 3)", () => {
  it("an operator's requeue of a delivery whose last lease ran out unnoticed (no list, claim or job since): 200, ready with a fresh budget — was 409 while the row still said claimed", async () => {
    const start = await freshMailbox(1);
    const spend = Array.from({ length: maxAttempts }, () => [
      new Claim(0, 1),
      new Advance(leaseMs),
      new Advance(900_000),
    ]).flat();
    await fc.asyncModelRun(() => start, [...spend, new Requeue(0), new List(), new Claim(0, 1)]);
  });
});
