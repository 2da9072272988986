import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  setupPartner,
  streamUpload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { overHttp } from "../support/http-injector.js";
import { createTenantAcross } from "../support/multiprocess-tenant.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { createTestDatabase, onPostgres, type TestDatabase } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

/*
 * Issue 34 item 1 (rules/contract §8): two `hanse serve` processes (API and worker each) on one
 * PostgreSQL database receive the same interchange under two idempotency keys at once, several
 * times: exactly one upload of each pair is processed, the other is rejected naming it. Both
 * jobs run at once (two workers); the check under the connection's row lock decides.
 */
const token = "duplicates-multiprocess-bootstrap-token-0123456789";
const password = "correct horse battery staple";
const rounds = 6;

describe.skipIf(!onPostgres)("duplicate interchanges across processes (PostgreSQL)", () => {
  let adminToken: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let db: TestDatabase;
  let dir: string;
  const servers: ServerProcess[] = [];

  /** `hanse serve` (API and worker) on the test database, polling for jobs every 20 ms. */
  async function serve(name: string): Promise<ServerProcess> {
    const env = { DATABASE_URL: db.url, HOST: "127.0.0.1", HANSE_BOOTSTRAP_TOKEN: token };
    const server = await startServerProcess({
      ...env,
      HANSE_DATA_DIR: join(dir, name),
      HANSE_JOB_POLL_MS: "20",
    });
    servers.push(server);
    return server;
  }

  const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "hanse-duplicates-mp-"));
    // One after the other: the first start creates the system tenant.
    a = await serve("a");
    b = await serve("b");
    adminToken = (await createTenantAcross(a, b, token, { name: "Duplicates", prefix: "dups", password }))
      .token;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const view = async (server: ServerProcess, uploadId: string) =>
    (await json(
      await fetch(`${server.url}/api/v1/admin/exchange-uploads/${uploadId}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      }),
    )) as { status: string; duplicateOf: string | null };

  it("the same interchange uploaded under two keys to two processes at once: exactly one is processed, the other rejected with duplicateOf", async () => {
    const p: PartnerSetup = await setupPartner(
      overHttp(() => a.url),
      adminToken,
    );
    for (let round = 0; round < rounds; round++) {
      const body = Buffer.from(validOrders(`MPDUP${String(round)}`));
      const answers = await Promise.all([
        streamUpload(a.url, p, body, `mp-dup-${String(round)}-a`),
        streamUpload(b.url, p, body, `mp-dup-${String(round)}-b`),
      ]);
      const ids: string[] = [];
      for (const answer of answers) {
        const text = await answer.body.text();
        expect(answer.statusCode, text).toBe(202);
        ids.push((JSON.parse(text) as { uploadId: string }).uploadId);
      }
      expect(new Set(ids).size).toBe(2);
      let views: { status: string; duplicateOf: string | null }[] = [];
      await waitUntil(
        async () => {
          views = await Promise.all(ids.map((id, i) => view(i === 0 ? a : b, id)));
          return views.every((v) => v.status === "processed" || v.status === "rejected");
        },
        { what: `round ${String(round)}: both uploads final`, timeoutMs: 60_000 },
      );
      const processed = ids.filter((_, i) => views[i]?.status === "processed");
      expect(processed, `round ${String(round)}: ${JSON.stringify(views)}`).toHaveLength(1);
      const rejected = views.find((v) => v.status === "rejected");
      expect(rejected?.duplicateOf).toBe(processed[0]);
    }
    // Every round's interchange produced one ORDRSP, and one CONTRL per duplicate.
    const mailbox = await fetch(
      `${a.url}/api/v1/admin/exchange-deliveries?connectionId=${p.connectionId}&limit=100`,
      {
        headers: { authorization: `Bearer ${adminToken}` },
      },
    );
    const { items } = (await mailbox.json()) as { items: { messageType: string }[] };
    expect(items.filter((d) => d.messageType === "ORDRSP")).toHaveLength(rounds);
    expect(items.filter((d) => d.messageType === "CONTRL")).toHaveLength(rounds);
    const raced = servers.map((s) => s.output().split("processing it as its duplicate").length - 1);
    console.info(`uploads processed again as duplicates: ${JSON.stringify(raced)}`);
  }, 240_000);
});
