// remote mode: in-process only: a fake clock and HANSE_FEED_RETENTION_SECONDS of its own
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import {
  Capture,
  createAppWithBinding,
  createCliRunner,
  freePort,
  setEntitlement,
} from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

// The server's clock moves for the retention job; the CLI signs with the real time (within ±300 s).
const clock = createManualClock(new Date());
let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;
let dir: string;
const { hanse, runs } = createCliRunner(() => ({
  HANSE_URL: baseUrl,
  HANSE_TOKEN: tenant.token,
  HANSE_CLI_CONFIG: "/nonexistent/credentials.json",
}));

async function runHousekeeping() {
  const job = t.container.jobs.find((j) => j.name === "entitlements.housekeeping");
  if (!job) throw new Error("no entitlements.housekeeping job");
  await job.run({} as never, {
    jobId: "test",
    attempt: 1,
    maxAttempts: 1,
    signal: new AbortController().signal,
  });
}

let appCounter = 0;

/** An app with a binding made through the CLI; returns the binding (secret included) and an env for service commands. */
async function appWithBinding() {
  const app = `cli-app-${appCounter++}`;
  const binding = await createAppWithBinding(hanse, app);
  const env = { HANSE_SERVICE_CREDENTIAL_ID: binding.credentialId, HANSE_SERVICE_SECRET: binding.secret };
  const set = (actor: string, ...extra: string[]) => setEntitlement(hanse, app, actor, ...extra);
  return { app, binding, env, set };
}

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { type: string; sequence?: number; actorId?: string; reason?: string });

beforeAll(async () => {
  const port = await freePort();
  t = await createTestApp({
    clock,
    env: { HANSE_FEED_RETENTION_SECONDS: "60", HANSE_PUBLIC_URL: `http://127.0.0.1:${port}` },
  });
  baseUrl = await t.app.listen({ port, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  dir = await mkdtemp(join(tmpdir(), "hanse-ent-cli-"));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe("hanse entitlements / bindings administration", () => {
  it("apps create|list|get, set, get, list, bindings create|rotate; the secret is printed once, at issue", async () => {
    const app = `admin-app-${appCounter++}`;
    expect(
      (
        await hanse([
          "entitlements",
          "apps",
          "create",
          "--id",
          app,
          "--name",
          "Admin app",
          "--capabilities",
          "read,write",
        ])
      ).out,
    ).toContain(`created app ${app}`);
    expect((await hanse(["entitlements", "apps", "list"])).out).toContain(app);
    expect((await hanse(["entitlements", "apps", "get", app])).out).toContain("read, write");
    const set = await hanse([
      "entitlements",
      "set",
      app,
      "alice",
      "--status",
      "active",
      "--plan",
      "team",
      "--capabilities",
      "read",
      "--valid-until",
      "2099-01-01T00:00:00Z",
    ]);
    expect(set.exitCode, set.err).toBe(0);
    expect(set.out).toContain("alice: active, plan team");
    expect(set.out).toContain("2099-01-01T00:00:00.000Z");
    expect((await hanse(["entitlements", "get", app, "alice", "--json"])).out).toContain('"plan": "team"');
    const list = await hanse(["entitlements", "list", app]);
    expect(list.out).toMatch(/alice\s+active\s+team\s+1/);
    const history = await hanse(["entitlements", "history", app, "alice"]);
    expect(history.exitCode, history.err).toBe(0);
    expect(history.out).toMatch(/^SEQ\s+OCCURRED\s+STATUS\s+PLAN/);
    expect(history.out).toMatch(/\n1\s+\S+Z\s+active\s+team\s+2099-01-01T00:00:00.000Z\s+read/);
    const historyJson = JSON.parse(
      (await hanse(["entitlements", "history", app, "alice", "--json"])).out,
    ) as {
      items: { sequence: number }[];
      meta: { prunedThrough: number };
    };
    expect(historyJson.items.map((c) => c.sequence)).toEqual([1]);
    expect(historyJson.meta.prunedThrough).toBe(0);
    const bad = await hanse([
      "entitlements",
      "set",
      app,
      "bob",
      "--status",
      "active",
      "--plan",
      "x",
      "--capabilities",
      "fly",
    ]);
    expect(bad.exitCode).toBe(1);
    expect(bad.err).toContain("400");

    const created = await hanse([
      "bindings",
      "create",
      "--app",
      app,
      "--audience",
      "svc",
      "--require",
      "read",
    ]);
    expect(created.exitCode, created.err).toBe(0);
    const secret = /secret:\s+(\S+)/.exec(created.out)?.[1] ?? "";
    expect(secret.length).toBeGreaterThan(20);
    expect(created.out.split(secret)).toHaveLength(2);
    expect(created.out).toContain("shown only now");
    const id = /created binding (\S+)/.exec(created.out)?.[1] ?? "";
    const rotated = await hanse(["bindings", "rotate", id]);
    expect(rotated.exitCode, rotated.err).toBe(0);
    const newSecret = /secret:\s+(\S+)/.exec(rotated.out)?.[1] ?? "";
    expect(newSecret).not.toBe(secret);
    expect(rotated.out).toContain("previous credential hanse_sc_");
  });
});

describe("hanse entitlements with a service credential", () => {
  it("introspect, grant and verify-grant (issuer and JWKS from discovery; the grant from stdin)", async () => {
    const { env, set, binding, app } = await appWithBinding();
    await set("carol");
    const yes = await hanse(["entitlements", "introspect", "carol"], { env });
    expect(yes.exitCode, yes.err).toBe(0);
    expect(yes.out).toContain(`carol: entitled (app ${app})`);
    expect((await hanse(["entitlements", "introspect", "nobody"], { env })).out).toContain("not entitled");
    // The secret on stdin instead of the environment.
    const piped = await hanse(["entitlements", "introspect", "carol", "--secret-stdin", "--json"], {
      env: { HANSE_SERVICE_CREDENTIAL_ID: binding.credentialId },
      stdin: `${binding.secret}\n`,
    });
    expect(JSON.parse(piped.out)).toMatchObject({ entitled: true });

    const grant = await hanse(["entitlements", "grant", "carol"], { env });
    expect(grant.exitCode, grant.err).toBe(0);
    const jws = grant.out.trim();
    expect(jws.split(".")).toHaveLength(3);
    const verified = await hanse(
      ["entitlements", "verify-grant", "-", "--audience", binding.audience, "--binding", binding.id],
      {
        stdin: `${jws}\n`,
      },
    );
    expect(verified.exitCode, verified.err).toBe(0);
    expect(verified.out).toContain(`valid grant for carol (app ${app}`);
    const other = await hanse(
      [
        "entitlements",
        "verify-grant",
        "--audience",
        binding.audience,
        "--binding",
        "00000000-0000-4000-8000-000000000000",
      ],
      { stdin: jws },
    );
    expect(other.exitCode).toBe(2);
    expect(other.err).toContain("grant refused (binding)");

    const refused = await hanse(["entitlements", "grant", "nobody"], { env });
    expect(refused.exitCode).toBe(1);
    expect(refused.err).toContain("ERR_APP_ENTITLEMENT_NOT_ENTITLED");
    const wrong = await hanse(["entitlements", "introspect", "carol"], {
      env: { ...env, HANSE_SERVICE_SECRET: "wrong-secret" },
    });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.err).toContain("ERR_SERVICE_AUTH_INVALID_SIGNATURE");
    expect(wrong.err).toContain("hint: check the service credential");
  });

  it("changes --state resumes where it stopped, re-snapshots after 410, and --follow tails until interrupted", async () => {
    const { env, set } = await appWithBinding();
    const state = join(dir, "feed-state.json");
    await set("a");
    await set("b");
    // First run: no position, so a snapshot first (rule 1), then the changes after it.
    const first = await hanse(["entitlements", "changes", "--state", state], { env });
    expect(first.exitCode, first.err).toBe(0);
    expect(jsonLines(first.out).map((l) => l.type)).toEqual([
      "snapshot.reset",
      "snapshot.entitlement",
      "snapshot.entitlement",
      "snapshot.complete",
    ]);
    expect(first.err).toContain("feed: caught up at 2");
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ lastSequence: 2 });

    // After a restart it resumes after 2: only the new changes.
    await set("c");
    await set("a", "--plan", "p2");
    const second = await hanse(["entitlements", "changes", "--state", state, "--limit", "1"], { env });
    expect(second.exitCode, second.err).toBe(0);
    expect(jsonLines(second.out).map((l) => `${l.type}:${l.sequence}:${l.actorId}`)).toEqual([
      "entitlement.changed:3:c",
      "entitlement.changed:4:a",
    ]);
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ lastSequence: 4 });

    // The changes after 4 are pruned: 410, so a new snapshot (rule 2), and the position moves on.
    await set("d");
    clock.advance(120_000);
    await set("e");
    await runHousekeeping();
    const third = await hanse(["entitlements", "changes", "--state", state], { env });
    expect(third.exitCode, third.err).toBe(0);
    const lines = jsonLines(third.out);
    expect(lines[0]).toEqual({ type: "snapshot.reset", reason: "cursor-expired" });
    expect(lines.filter((l) => l.type === "snapshot.entitlement")).toHaveLength(5);
    expect(lines.at(-1)).toMatchObject({ type: "snapshot.complete", asOfSequence: 6 });
    expect(third.err).toContain("410");
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ lastSequence: 6 });

    // --follow: prints what is written while it runs, keeps the position, stops on its signal.
    const controller = new AbortController();
    const stdout = new Capture();
    const tail = hanse(["entitlements", "changes", "--state", state, "--follow", "--poll-ms", "100"], {
      env,
      signal: controller.signal,
      stdout,
    });
    await set("f");
    await waitUntil(async () => stdout.text.includes('"actorId":"f"'), { what: "the tail shows f" });
    controller.abort();
    const followed = await tail;
    expect(followed.exitCode, followed.err).toBe(0);
    expect(jsonLines(followed.out).map((l) => `${l.sequence}:${l.actorId}`)).toEqual(["7:f"]);
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ lastSequence: 7 });
  });

  it("no output of any command carries a secret, except the one-time print at issue and rotation", async () => {
    const secrets = runs
      .flatMap((run) => [...run.out.matchAll(/"?secret"?:\s+"?([A-Za-z0-9_\-+/=]{20,})"?/g)].map((m) => m[1]))
      .filter((s): s is string => s !== undefined);
    expect(secrets.length).toBeGreaterThan(2);
    for (const secret of secrets) {
      const carrying = runs.filter((run) => run.out.includes(secret) || run.err.includes(secret));
      expect(carrying).toHaveLength(1);
    }
  });
});
