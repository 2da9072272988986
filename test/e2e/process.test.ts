// remote mode: in-process only: starts Hanse processes of its own (nothing of the topology)
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminUrl, databaseUrlFor } from "../support/postgres-url.js";
import {
  runServerExpectingFailure,
  startServerProcess,
  type ServerProcess,
} from "../support/server-process.js";
import { onPostgres } from "../support/test-database.js";
import { waitUntil } from "../support/wait-until.js";

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;
const get = (server: ServerProcess, path: string, token?: string) =>
  fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe("the server process on the embedded database (npm start)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "hanse-process-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("first start writes a random bootstrap token to a 0600 file and logs only its path; SIGTERM exits 0", async () => {
    const server = await startServerProcess({
      HANSE_DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      HANSE_BOOTSTRAP_TOKEN: undefined,
    });
    const path = join(dataDir, "bootstrap-token");
    const token = (await readFile(path, "utf8")).trim();
    expect(token.length).toBeGreaterThanOrEqual(43);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const whoami = await get(server, "/api/v1/profile/whoami", token);
    expect(whoami.status).toBe(200);
    expect(await json(whoami)).toMatchObject({ tenant: { slug: "system", type: "system" } });
    expect(server.output()).toContain(path);
    expect(server.output()).not.toContain(token);
    expect(await server.stop("SIGTERM")).toBe(0);
  });

  it(
    "data survives a restart, and an acknowledged write survives kill -9",
    { timeout: 240_000 },
    async () => {
      const token = (await readFile(join(dataDir, "bootstrap-token"), "utf8")).trim();
      const first = await startServerProcess({
        HANSE_DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        HANSE_ROLES: "api",
      });
      const created = await fetch(`${first.url}/api/v1/system/tenants`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": "durable-1",
        },
        body: JSON.stringify({ name: "Durable", slug: "durable" }),
      });
      expect(created.status).toBe(202);
      const { tenantId } = (await created.json()) as { tenantId: string };
      await first.stop("SIGKILL");
      const second = await startServerProcess({ HANSE_DATA_DIR: dataDir, DATABASE_URL: undefined });
      try {
        const tenant = await get(second, `/api/v1/system/tenants/${tenantId}`, token);
        expect(tenant.status).toBe(200);
        expect(await json(tenant)).toMatchObject({ slug: "durable" });
        // The provisioning job committed with the tenant runs in the restarted process.
        const state = async () =>
          (await json(await get(second, `/api/v1/system/tenants/${tenantId}/provisioning`, token))).state;
        await waitUntil(async () => (await state()) === "succeeded", {
          what: "the provisioning job to succeed after the restart",
          timeoutMs: 60_000,
        });
      } finally {
        await second.stop();
      }
    },
  );

  it("an invalid configuration exits non-zero naming every invalid variable", async () => {
    const { code, output } = await runServerExpectingFailure({
      PORT: "not-a-port",
      HANSE_ROLES: "everything",
      HANSE_BOOTSTRAP_TOKEN: "too-short",
    });
    expect(code).not.toBe(0);
    expect(output).toContain("PORT");
    expect(output).toContain("HANSE_ROLES");
    expect(output).toContain("HANSE_BOOTSTRAP_TOKEN");
    expect(output).not.toContain("too-short");
  });
});

describe.skipIf(!onPostgres)("several processes on one PostgreSQL", () => {
  const name = `hanse_proc_${process.pid}_${Date.now()}`;
  // Only used when DATABASE_URL is set; the placeholder keeps collection working without it.
  const base = process.env.DATABASE_URL ?? "postgres://unused@127.0.0.1/unused";
  const url = databaseUrlFor(base, name);
  const admin = new pg.Client({ connectionString: adminUrl(base) });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("a database that does not exist stops the start with a message naming the cause", async () => {
    const { code, output } = await runServerExpectingFailure({
      DATABASE_URL: databaseUrlFor(base, `${name}_missing`),
      HANSE_BOOTSTRAP_TOKEN: "process-test-bootstrap-token-0123456789",
    });
    expect(code).not.toBe(0);
    expect(output).toContain(`database "${name}_missing" does not exist`);
  });

  it("two processes starting at once migrate and bootstrap exactly once", async () => {
    const token = "process-test-bootstrap-token-0123456789";
    const env = { DATABASE_URL: url, HANSE_BOOTSTRAP_TOKEN: token };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    try {
      for (const server of [a, b])
        expect((await get(server, "/api/v1/profile/whoami", token)).status).toBe(200);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const tenants = await client.query("SELECT count(*)::int AS n FROM tenants WHERE type = 'system'");
      const migrations = await client.query("SELECT count(*)::int AS n FROM schema_migrations");
      await client.end();
      expect(tenants.rows[0]).toEqual({ n: 1 });
      expect((migrations.rows[0] as { n: number }).n).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe("the command-line client process", () => {
  it("a reader that stops early (| head) ends a client command quietly: exit 0, no stack trace", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hanse-epipe-"));
    const path = join(dir, "big.edi");
    const lines = Array.from({ length: 5000 }, (_, i) => `LIN+${i + 1}++4000862141404:EN'QTY+21:1'`).join("");
    await writeFile(
      path,
      `UNB+UNOC:3+A:14+B:14+240315:1200+R1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'DTM+137:20240315:102'` +
        `${lines}UNS+S'UNT+10004+1'UNZ+1+R1'`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "edi", "inspect", path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(err).toBe("");
    expect(code).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });
});
