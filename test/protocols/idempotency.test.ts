import fc from "fast-check";
import { sql } from "kysely";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { createProduct, provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { inProcessOnly } from "../support/remote-app.js";
import { protocolRuns, protocolTimeout, runCounter } from "./runs.js";

/*
 * Issue 37 item 2: the idempotency layers (docs/protocols.md "Upload idempotency …" and
 * "Transition requests", the Spin models src/modules/exchange/model/uploads.pml and
 * src/modules/workflows/model/transition-requests.pml) checked against the real server. fast-check
 * draws sequences of sends — each a burst of 1–4 concurrent requests under one idempotency key,
 * with the same or another body, started in an order fc.scheduler draws — and compares every
 * answer with a reference model (the key's first body and the upload or request it made); after
 * each burst the rows the server stored must be one upload or request, and one queue job, per key.
 */

const countsRows = inProcessOnly(
  "counts upload, request and job rows in its own database; backlog limits of its own",
);
let t: TestApp;
let tenant: ProvisionedTenant;
let run = 0;

beforeAll(async () => {
  // The uploads stay unprocessed (their jobs are counted, not run): the backlog guard, which
  // answers 503 over 2,000 of a tenant's, would stop a long run (npm run fuzz -- protocols).
  t = await createTestApp({
    env: { HANSE_INBOX_MAX_BACKLOG: "10000000", HANSE_INBOX_MAX_BACKLOG_PER_TENANT: "10000000" },
  });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
});

const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
  (await query.execute(t.container.database.db)).rows[0]?.n ?? 0;

/** Sends started in the order the scheduler draws, running at once; their answers in send order. */
async function burst(
  s: fc.Scheduler,
  sends: readonly (() => Promise<LightMyRequestResponse>)[],
): Promise<LightMyRequestResponse[]> {
  const started = sends.map((send, i) => s.schedule(Promise.resolve(`send ${i}`)).then(() => send()));
  await s.waitIdle();
  return Promise.all(started);
}

/** One key's sends: the first body decides; the same body replays its answer, another is refused. */
interface KeyModel {
  body: number;
  id: string;
  /** The first answer's body (transition requests replay it byte for byte). */
  answer: string;
}

interface KeysModel {
  keys: Map<number, KeyModel>;
}

/** A burst of sends under key `key` (of 3), one per entry of `bodies` (each one of 3 bodies). */
abstract class Burst<R> implements fc.AsyncCommand<KeysModel, R> {
  constructor(
    readonly key: number,
    readonly bodies: readonly number[],
  ) {}
  check = () => true;
  abstract run(m: KeysModel, r: R): Promise<void>;
  toString = () => `send(key ${this.key}, bodies [${this.bodies.join(", ")}] at once)`;
}

/** Up to 8 bursts of 1–4 sends each. */
const bursts = <R>(make: (key: number, bodies: number[]) => Burst<R>) =>
  fc.commands(
    [
      fc
        .tuple(fc.nat({ max: 2 }), fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 4 }))
        .map(([k, b]) => make(k, b)),
    ],
    { maxCommands: 8 },
  );

describe.skipIf(countsRows)("upload idempotency against its model (docs/protocols.md)", () => {
  interface Real {
    s: fc.Scheduler;
    partner: PartnerSetup;
    bodies: string[];
    keyOf: (k: number) => string;
    uploadsBefore: number;
    jobsBefore: number;
  }

  class Send extends Burst<Real> {
    async run(m: KeysModel, r: Real) {
      const responses = await burst(
        r.s,
        this.bodies.map((b) => () => upload(t, r.partner, r.bodies[b] ?? "", r.keyOf(this.key))),
      );
      const where = (i: number) => `send ${i} (body ${this.bodies[i]}): ${responses[i]?.body}`;
      let known = m.keys.get(this.key);
      if (!known) {
        // A new key: exactly one send makes the upload (202); its body is the key's.
        const created = responses.filter((x) => x.statusCode === 202);
        expect(created, responses.map((_, i) => where(i)).join("; ")).toHaveLength(1);
        const first = created[0];
        if (!first) throw new Error("no 202");
        const index = responses.indexOf(first);
        known = {
          body: this.bodies[index] ?? -1,
          id: first.json<{ uploadId: string }>().uploadId,
          answer: first.body,
        };
        expect(first.json()).toMatchObject({ replay: false, status: "received" });
        m.keys.set(this.key, known);
      }
      responses.forEach((response, i) => {
        if (response.body === known.answer) return;
        if (this.bodies[i] === known.body) {
          expect(response.statusCode, where(i)).toBe(200);
          expect(response.headers["idempotent-replayed"], where(i)).toBe("true");
          expect(response.json(), where(i)).toMatchObject({ uploadId: known.id, replay: true });
        } else {
          expect(response.statusCode, where(i)).toBe(409);
          expect(response.json<{ code: string }>().code, where(i)).toBe("ERR_B2B_EXCHANGE_CONFLICT");
        }
      });
      // One upload and one processing job per key.
      expect(
        await count(
          sql`SELECT count(*)::int AS n FROM exchange_uploads WHERE connection_id = ${r.partner.connectionId}`,
        ),
      ).toBe(m.keys.size);
      expect(
        await count(
          sql`SELECT count(*)::int AS n FROM jobs WHERE name = 'exchange.process-upload' AND tenant_id = ${tenant.id}`,
        ),
      ).toBe(r.jobsBefore + m.keys.size);
    }
  }

  const commands = bursts((k, b) => new Send(k, b));

  it(
    "bursts of concurrent uploads under repeated keys, with the same or other bytes: one upload and one job per key, every answer that upload or 409",
    async () => {
      const runs = runCounter("upload idempotency");
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), commands, async (s, cmds) => {
          runs.tick();
          const partner = await setupPartner(t, tenant.token);
          const id = run++;
          const real: Real = {
            s,
            partner,
            bodies: [0, 1, 2].map((b) => validOrders(`U${id}B${b}`)),
            keyOf: (k) => `protocol-${id}-${k}`,
            uploadsBefore: 0,
            jobsBefore: await count(
              sql`SELECT count(*)::int AS n FROM jobs WHERE name = 'exchange.process-upload' AND tenant_id = ${tenant.id}`,
            ),
          };
          await fc.asyncModelRun(() => ({ model: { keys: new Map() }, real }), cmds);
        }),
        protocolRuns(25),
      );
      runs.report();
    },
    protocolTimeout(),
  );
});

describe.skipIf(countsRows)("transition request idempotency against its model (docs/protocols.md)", () => {
  const href = "/api/v1/workflows/transition-requests";
  interface Real {
    s: fc.Scheduler;
    bodies: object[];
    keyOf: (k: number) => string;
    requestsBefore: number;
    jobsBefore: number;
  }
  const requests = () =>
    count(sql`SELECT count(*)::int AS n FROM workflow_transition_requests WHERE tenant_id = ${tenant.id}`);
  const jobs = () =>
    count(
      sql`SELECT count(*)::int AS n FROM jobs WHERE name = 'workflows.transition' AND tenant_id = ${tenant.id}`,
    );

  class Send extends Burst<Real> {
    async run(m: KeysModel, r: Real) {
      const responses = await burst(
        r.s,
        this.bodies.map(
          (b) => () =>
            t.inject({
              method: "POST",
              url: href,
              headers: {
                ...bearer(tenant.token),
                "x-tenant-id": tenant.id,
                "x-idempotency-key": r.keyOf(this.key),
              },
              payload: r.bodies[b] ?? {},
            }),
        ),
      );
      const where = (i: number) => `send ${i} (body ${this.bodies[i]}): ${responses[i]?.body}`;
      let known = m.keys.get(this.key);
      if (!known) {
        const accepted = responses.filter((x) => x.statusCode === 202);
        const first = accepted[0];
        expect(first, responses.map((_, i) => where(i)).join("; ")).toBeDefined();
        if (!first) throw new Error("no 202");
        known = {
          body: this.bodies[responses.indexOf(first)] ?? -1,
          id: first.json<{ requestId: string }>().requestId,
          answer: first.body,
        };
        m.keys.set(this.key, known);
      }
      responses.forEach((response, i) => {
        if (this.bodies[i] === known.body) {
          // The same answer every time: the first, byte for byte, naming the one request.
          expect(response.statusCode, where(i)).toBe(202);
          expect(response.body, where(i)).toBe(known.answer);
        } else {
          expect(response.statusCode, where(i)).toBe(409);
          expect(response.json<{ code: string }>().code, where(i)).toBe("ERR_IDEMPOTENCY_MISMATCH");
        }
      });
      // Exactly one request and one queue job per key.
      expect(await requests()).toBe(r.requestsBefore + m.keys.size);
      expect(await jobs()).toBe(r.jobsBefore + m.keys.size);
    }
  }

  const commands = bursts((k, b) => new Send(k, b));

  it(
    "bursts of concurrent transition requests under repeated keys: one request and one queue job per key, every answer the first or 409",
    async () => {
      const entities = [await createProduct(t, tenant), await createProduct(t, tenant)];
      const runs = runCounter("transition request idempotency");
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), commands, async (s, cmds) => {
          runs.tick();
          const id = run++;
          const real: Real = {
            s,
            bodies: [
              { entity: "product", entityId: entities[0], transition: "submit" },
              { entity: "product", entityId: entities[1], transition: "submit" },
              { entity: "product", entityId: entities[0], transition: "submit", payload: { note: "x" } },
            ],
            keyOf: (k) => `protocol-${id}-${k}`,
            requestsBefore: await requests(),
            jobsBefore: await jobs(),
          };
          await fc.asyncModelRun(() => ({ model: { keys: new Map() }, real }), cmds);
        }),
        protocolRuns(25),
      );
      runs.report();
    },
    protocolTimeout(),
  );
});
