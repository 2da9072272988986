import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCuttableProxy } from "../support/cuttable-proxy.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { bootstrapToken } from "../support/test-app.js";
import {
  createTestDatabase,
  onPostgres,
  throughPooler,
  type TestDatabase,
} from "../support/test-database.js";

// docs/operations.md "Health, logs, shutdown": SIGTERM finishes requests and jobs within
// HANSE_SHUTDOWN_TIMEOUT_MS. A database that hangs (packets dropped, a frozen server) leaves
// statements waiting for an answer that never comes, and closing the pool would wait for them:
// the process must still end, with exit code 1 and an error in its log, not hang forever.
const enabled = onPostgres && !throughPooler;
if (!enabled) console.warn("shutdown-deadline.test.ts: skipped — needs DATABASE_URL (PostgreSQL, direct)");

describe.skipIf(!enabled)("SIGTERM ends the process even when the database hangs", () => {
  let db: TestDatabase;
  let dataDir: string;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let server: ServerProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), "hanse-shutdown-"));
    proxy = await startCuttableProxy();
    server = await startServerProcess({
      DATABASE_URL: proxy.connectVia(db.url ?? ""),
      HANSE_BOOTSTRAP_TOKEN: bootstrapToken,
      HANSE_DATA_DIR: dataDir,
      HANSE_SHUTDOWN_TIMEOUT_MS: "1000",
    });
  }, 120_000);
  afterAll(async () => {
    await server.stop("SIGKILL").catch(() => undefined);
    await proxy.close();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("a request stuck on a hung database: SIGTERM exits 1 after the shutdown deadline and logs why", async () => {
    const headers = { authorization: `Bearer ${bootstrapToken}` };
    const before = await fetch(`${server.url}/api/v1/system/tenants`, { headers });
    expect(before.status).toBe(200);

    proxy.freeze();
    const aborter = new AbortController();
    const stuck = fetch(`${server.url}/api/v1/system/tenants`, { headers, signal: aborter.signal }).then(
      (r) => r.status,
      () => "aborted",
    );
    // The request reached the server and waits on the database.
    await new Promise((r) => setTimeout(r, 500));

    const code = await server.stop("SIGTERM");
    aborter.abort();
    expect(code).toBe(1);
    expect(server.output()).toContain("shutdown did not finish in time");
    expect(await stuck).not.toBe(200);
  }, 60_000);
});
