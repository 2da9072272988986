// remote mode: in-process only: a fake clock and a webhook receiver's settings of its own
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReceiverReport } from "../../packages/client/src/cli/webhook-receiver-check.js";
import { createManualClock } from "../../src/platform/clock/clock.js";
import { verifyWebhook } from "@hanse/client/protocol";
import {
  createAppWithBinding,
  createCliRunner,
  setEntitlement,
  type CliBinding,
} from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import {
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  type ReceiverAnswer,
  webhookReceiverEnv,
} from "../support/https-receiver.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

// The server's clock moves for retries; the CLI admin commands sign nothing.
const clock = createManualClock(new Date());
let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;
let receiver: HttpsReceiver;
let appCounter = 0;
const { hanse, runs } = createCliRunner(() => ({
  HANSE_URL: baseUrl,
  HANSE_TOKEN: tenant.token,
  HANSE_CLI_CONFIG: "/nonexistent/credentials.json",
}));

/** The Standard Webhooks headers of a received request, for the independent `standardwebhooks` package. */
const headersOf = (request: ReceivedRequest) =>
  Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
  );

async function withBinding(): Promise<CliBinding> {
  return createAppWithBinding(hanse, `hooks-cli-${appCounter++}`);
}

/** A binding subscribed through the CLI to the receiver at `path`; what the receiver got there. */
async function subscribe(path: string) {
  const binding = await withBinding();
  const created = await hanse([
    "webhooks",
    "create",
    "--binding",
    binding.id,
    "--url",
    receiver.url.replace("/hooks", path),
    "--json",
  ]);
  expect(created.exitCode, created.err).toBe(0);
  const { id, secret } = JSON.parse(created.out) as { id: string; secret: string };
  return { binding, id, secret, received: () => receiver.received.filter((r) => r.url === path) };
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    clock,
    env: webhookReceiverEnv(receiver),
  });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe("hanse webhooks: subscription administration (issue 22 item 4)", () => {
  it("rules/contract §8: create --events makes an operator subscription; --binding and --events together or neither is a usage error; an unknown type is the server's 400", async () => {
    const url = receiver.url.replace("/hooks", "/operator");
    const created = await hanse([
      "webhooks",
      "create",
      "--events",
      "exchange.upload.rejected, exchange.delivery.overdue",
      "--url",
      url,
    ]);
    expect(created.exitCode, created.err).toBe(0);
    expect(created.out).toMatch(
      /Events:\s+exchange\.upload\.rejected, exchange\.delivery\.overdue \(operator subscription\)/,
    );
    expect(created.out).toMatch(/Secret:\s+whsec_/);
    const neither = await hanse(["webhooks", "create", "--url", url]);
    expect(neither.exitCode).toBe(1);
    expect(neither.err).toContain("give either --binding or --events");
    const unknown = await hanse(["webhooks", "create", "--events", "exchange.upload.lost", "--url", url]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.err).toContain("ERR_VALIDATION");
    expect(unknown.err).toContain("/eventTypes/0");
  });

  it("issue 22: create prints the secret once; list, list --binding and show say the state; errors are problems with exit 1", async () => {
    const binding = await withBinding();
    const other = await withBinding();
    const url = receiver.url.replace("/hooks", "/admin");
    const created = await hanse(["webhooks", "create", "--binding", binding.id, "--url", url]);
    expect(created.exitCode, created.err).toBe(0);
    const id = /created webhook subscription (\S+)/.exec(created.out)?.[1] ?? "";
    const secret = /Secret:\s+(whsec_\S+)/.exec(created.out)?.[1] ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.out.split(secret)).toHaveLength(2);
    expect(created.out).toContain("shown only now");
    expect(created.out).toMatch(/State:\s+enabled/);

    const list = await hanse(["webhooks", "list"]);
    expect(list.exitCode, list.err).toBe(0);
    expect(list.out).toMatch(/^ID\s+BINDING\s+APP\s+STATE\s+URL$/m);
    expect(list.out).toMatch(new RegExp(`${id}\\s+${binding.id}\\s+${binding.appId}\\s+enabled\\s+${url}`));
    const mine = await hanse(["webhooks", "list", "--binding", binding.id, "--json"]);
    expect(JSON.parse(mine.out)).toMatchObject({
      items: [{ id, bindingId: binding.id, url, enabled: true }],
      meta: { hasMore: false },
    });
    expect((await hanse(["webhooks", "list", "--binding", other.id])).out).toContain(
      "No webhook subscriptions.",
    );
    const mixed = await hanse(["webhooks", "list", "--binding", other.id, "--limit", "5"]);
    expect(mixed.exitCode).toBe(1);
    expect(mixed.err).toContain("--binding reads every page");

    const shown = await hanse(["webhooks", "show", id, "--json"]);
    expect(JSON.parse(shown.out)).toEqual({
      id,
      bindingId: binding.id,
      appId: binding.appId,
      url,
      eventTypes: null,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: expect.any(String) as string,
    });

    const missing = await hanse(["webhooks", "show", "01a2002b-23a8-7036-922f-00e75614c1d4"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.err).toContain("error: 404 Not Found (ERR_NOT_FOUND)");
    expect(missing.err).toContain("correlation id:");
    const missingJson = await hanse(["webhooks", "show", "01a2002b-23a8-7036-922f-00e75614c1d4", "--json"]);
    expect(missingJson.exitCode).toBe(1);
    expect(JSON.parse(missingJson.err)).toMatchObject({ error: { kind: "api", status: 404 } });
    const plain = await hanse([
      "webhooks",
      "create",
      "--binding",
      binding.id,
      "--url",
      "http://example.com/x",
    ]);
    expect(plain.exitCode).toBe(1);
    expect(plain.err).toContain("400");
    expect(plain.err).toContain("ERR_VALIDATION");
    expect(plain.err).toContain("/url:");
  });

  it("issue 22: attempts shows time, status, latency and error class, never a body; disable, recover (409 while disabled), enable, recover re-sends", async () => {
    const { binding, id, secret, received } = await subscribe("/attempts");

    let calls = 0;
    receiver.answer = () => ({ status: calls++ === 0 ? 500 : 204 });
    await setEntitlement(hanse, binding.appId, "alice");
    await t.drainJobs();
    clock.advance(10_000);
    await t.drainJobs();
    expect(received()).toHaveLength(2);
    const [delivery] = received();
    const body = new Webhook(secret).verify(delivery?.body ?? "", headersOf(delivery as ReceivedRequest)) as {
      eventId: string;
    };

    const attempts = await hanse(["webhooks", "attempts", id]);
    expect(attempts.exitCode, attempts.err).toBe(0);
    const lines = attempts.out.trim().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+SEQ\s+ATTEMPT\s+STATUS\s+LATENCY\s+ERROR\s+WEBHOOK-ID$/);
    const webhookId = String(delivery?.headers["webhook-id"]);
    expect(lines[1]).toMatch(new RegExp(`^\\S+Z\\s+1\\s+2\\s+204\\s+\\d+ ms\\s+-\\s+${webhookId}$`));
    expect(lines[2]).toMatch(new RegExp(`^\\S+Z\\s+1\\s+1\\s+500\\s+\\d+ ms\\s+http-500\\s+${webhookId}$`));
    for (const never of [secret, body.eventId, "alice", "entitlement.changed"]) {
      expect(attempts.out).not.toContain(never);
    }
    const asJson = JSON.parse((await hanse(["webhooks", "attempts", id, "--json", "--limit", "1"])).out) as {
      items: Record<string, unknown>[];
      meta: { hasMore: boolean; nextCursor: string };
    };
    expect(Object.keys(asJson.items[0] ?? {}).sort()).toEqual([
      "attempt",
      "attemptedAt",
      "deliveryId",
      "errorClass",
      "id",
      "latencyMs",
      "sequence",
      "status",
    ]);
    expect(asJson.meta.hasMore).toBe(true);
    const next = await hanse(["webhooks", "attempts", id, "--cursor", asJson.meta.nextCursor]);
    const nextLines = next.out.trim().split("\n");
    expect(nextLines).toHaveLength(2);
    expect(nextLines[1]).toMatch(/^\S+Z\s+1\s+1\s+500\s+\d+ ms\s+http-500\s/);

    const disabled = await hanse(["webhooks", "disable", id]);
    expect(disabled.exitCode, disabled.err).toBe(0);
    expect(disabled.out).toContain(`disabled webhook subscription ${id}`);
    expect((await hanse(["webhooks", "show", id])).out).toMatch(
      /State:\s+disabled: disabled by an administrator/,
    );
    expect((await hanse(["webhooks", "list"])).out).toMatch(
      new RegExp(`${id}\\s+\\S+\\s+\\S+\\s+disabled\\s`),
    );
    const refused = await hanse(["webhooks", "recover", id, "--from-sequence", "1"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.err).toContain("409");
    expect(refused.err).toContain("ERR_CONFLICT");

    expect((await hanse(["webhooks", "enable", id])).out).toContain(`enabled webhook subscription ${id}`);
    const recovered = await hanse(["webhooks", "recover", id, "--from-sequence", "1"]);
    expect(recovered.exitCode, recovered.err).toBe(0);
    expect(recovered.out).toContain(`queued 1 delivery for subscription ${id}`);
    await t.drainJobs();
    expect(received()).toHaveLength(3);
    const again = received()[2] as ReceivedRequest;
    expect(new Webhook(secret).verify(again.body, headersOf(again))).toMatchObject({
      eventId: body.eventId,
      sequence: 1,
    });
    const usage = await hanse(["webhooks", "recover", id, "--from-sequence", "0"]);
    expect(usage.exitCode).toBe(1);
    expect(usage.err).toContain("--from-sequence: a whole number from 1");
  });

  it("issue 22: rotate-secret prints the new secret once and says the old one signs beside it until the overlap ends", async () => {
    const { binding, id, secret: old, received } = await subscribe("/rotate");
    const rotated = await hanse(["webhooks", "rotate-secret", id]);
    expect(rotated.exitCode, rotated.err).toBe(0);
    const secret = /Secret:\s+(whsec_\S+)/.exec(rotated.out)?.[1] ?? "";
    expect(secret).not.toBe(old);
    expect(rotated.out).not.toContain(old);
    expect(rotated.out).toMatch(/Until \S+Z the old secret signs beside the new one/);
    expect(rotated.out).toContain("shown only now");

    receiver.answer = () => ({ status: 204 });
    await setEntitlement(hanse, binding.appId, "bob");
    await t.drainJobs();
    const [delivery] = received();
    for (const key of [secret, old]) {
      expect(
        new Webhook(key).verify(delivery?.body ?? "", headersOf(delivery as ReceivedRequest)),
      ).toMatchObject({ actorId: "bob" });
    }
    const json = JSON.parse((await hanse(["webhooks", "rotate-secret", id, "--json"])).out) as object;
    expect(Object.keys(json).sort()).toEqual(["previousSecretValidUntil", "secret", "subscriptionId"]);
  });
});

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A receiver done right: verifies over the raw body (packages/client/src/protocol's verifyWebhook: signature and
 * ±5 min), processes a webhook-id once and acknowledges it again, and never looks at the order.
 */
function correctReceiver(secret: string, processed: unknown[]) {
  const seen = new Set<string>();
  return (request: ReceivedRequest): ReceiverAnswer => {
    const verified = verifyWebhook(secret, request.headers, request.body, nowSeconds());
    if (!verified.ok) return { status: 401 };
    if (!seen.has(verified.id)) {
      seen.add(verified.id);
      processed.push(JSON.parse(request.body));
    }
    return { status: 204 };
  };
}

const cases = [
  "signed-event",
  "duplicate-webhook-id",
  "out-of-order",
  "wrong-secret",
  "tampered-body",
  "stale-timestamp",
  "future-timestamp",
  "missing-signature",
  "missing-headers",
] as const;

/** The cases a receiver must refuse. */
const refusals = cases.slice(3);

/** The cases' results, all `pass` except those named. */
const passingBut = (failing: readonly string[], otherwise = "fail") =>
  Object.fromEntries(cases.map((id) => [id, failing.includes(id) ? otherwise : "pass"]));

/** `hanse webhooks test-receiver` at the local receiver's `path`, trusting its CA. */
const checkArgs = (path: string) => [
  "webhooks",
  "test-receiver",
  receiver.url.replace("/hooks", path),
  "--ca-file",
  receiver.caFile,
];

/** `hanse webhooks test-receiver` against the local receiver at `path`, trusting its CA; the secret from the environment. */
async function testReceiver(path: string, secret: string, answer: ReceiverAnswerFn, ...extra: string[]) {
  receiver.answer = answer;
  const run = await hanse([...checkArgs(path), "--json", ...extra], {
    env: { HANSE_WEBHOOK_SECRET: secret },
  });
  const report = JSON.parse(run.out) as ReceiverReport;
  const results = Object.fromEntries(report.cases.map((c) => [c.id, c.result]));
  return { run, report, results, received: receiver.received.filter((r) => r.url === path) };
}
type ReceiverAnswerFn = (request: ReceivedRequest) => ReceiverAnswer;

describe("hanse webhooks test-receiver (issue 22 item 4)", () => {
  it("issue 22: a correct receiver passes every case (exit 0); the test event is a real delivery's shape, signed as Standard Webhooks says", async () => {
    const secret = newSecret();
    const processed: unknown[] = [];
    const { run, report, results, received } = await testReceiver(
      "/correct",
      secret,
      correctReceiver(secret, processed),
    );
    expect(run.exitCode, run.err).toBe(0);
    expect(results).toEqual(passingBut([]));
    expect(report).toMatchObject({ passed: true, url: receiver.url.replace("/hooks", "/correct") });
    expect(report.cases.find((c) => c.id === "out-of-order")?.got).toEqual(["204", "204"]);
    // Ten requests; what a correct receiver processed: the event once (not its redelivery), then 3 and 2.
    expect(received).toHaveLength(10);
    expect(processed.map((e) => (e as { sequence: number }).sequence)).toEqual([1, 3, 2]);
    const [first, again] = received as [ReceivedRequest, ReceivedRequest];
    const event = new Webhook(secret).verify(first.body, headersOf(first)) as Record<string, unknown>;
    expect(Object.keys(event)).toEqual([
      "eventId",
      "type",
      "tenantId",
      "appId",
      "sequence",
      "actorId",
      "occurredAt",
    ]);
    expect(event).toMatchObject({
      eventId: report.event.eventId,
      type: "entitlement.changed",
      tenantId: "00000000-0000-0000-0000-000000000000",
      appId: "hanse-test-receiver",
      sequence: 1,
    });
    expect(first.headers["webhook-id"]).toBe(report.event.webhookId);
    expect(again.headers["webhook-id"]).toBe(report.event.webhookId);
    expect(again.body).toBe(first.body);
    expect(Number(again.headers["webhook-timestamp"])).toBe(Number(first.headers["webhook-timestamp"]) + 5);
    expect(new Webhook(secret).verify(again.body, headersOf(again))).toEqual(event);
    expect(first.headers["user-agent"]).toBe("hanse-test-receiver/1");

    // Human output: a table, the event to look up, and what status codes cannot show; the secret piped in.
    const human = await hanse([...checkArgs("/correct"), "--secret-stdin", "--app-id", "crm"], {
      stdin: `${secret}\n`,
    });
    expect(human.exitCode, human.err).toBe(0);
    expect(human.out).toMatch(/^CASE\s+EXPECTED\s+GOT\s+RESULT$/m);
    expect(human.out).toMatch(/a signed entitlement\.changed event\s+2xx\s+204\s+PASS/);
    expect(human.out).toMatch(/signed with another secret\s+4xx\s+401\s+PASS/);
    expect(human.out).toContain("All 9 cases passed.");
    expect(human.out).toContain("app crm");
    expect(human.out).toContain("It cannot see what your receiver did");
    expect(human.out).toContain("HANSE_WEBHOOK_ALLOW_PRIVATE");
    for (const output of [run.out, run.err, human.out, human.err]) expect(output).not.toContain(secret);
  });

  it("issue 22: a careless receiver that accepts everything fails the six refusals, exit 2", async () => {
    const { run, results } = await testReceiver("/careless", newSecret(), () => ({ status: 200 }));
    expect(run.exitCode).toBe(2);
    expect(results).toEqual(passingBut(refusals));
    expect(run.err).toContain("did not pass 6 of 9 cases");
    const human = await hanse([...checkArgs("/careless")], { env: { HANSE_WEBHOOK_SECRET: newSecret() } });
    expect(human.exitCode).toBe(2);
    expect(human.out).toMatch(/signed with another secret\s+4xx\s+200\s+FAIL/);
    expect(human.out).toContain("FAIL wrong-secret: Verify webhook-signature with your secret");
    expect(human.out).toContain("6 of 9 cases failed.");
  });

  it("issue 22: a receiver that ignores timestamps fails the stale and the future one", async () => {
    const secret = newSecret();
    const { run, results } = await testReceiver("/no-clock", secret, (request) =>
      verifyWebhook(secret, request.headers, request.body, nowSeconds(), Number.MAX_SAFE_INTEGER).ok
        ? { status: 204 }
        : { status: 400 },
    );
    expect(run.exitCode).toBe(2);
    expect(results).toEqual(passingBut(["stale-timestamp", "future-timestamp"]));
  });

  it("issue 22: a receiver that refuses a redelivery or an older sequence (409) fails those two", async () => {
    const secret = newSecret();
    const seen = new Set<string>();
    let last = 0;
    const { run, results, report } = await testReceiver("/strict", secret, (request) => {
      const verified = verifyWebhook(secret, request.headers, request.body, nowSeconds());
      if (!verified.ok) return { status: 401 };
      const { sequence } = JSON.parse(request.body) as { sequence: number };
      if (seen.has(verified.id) || sequence < last) return { status: 409 };
      seen.add(verified.id);
      last = sequence;
      return { status: 204 };
    });
    expect(run.exitCode).toBe(2);
    expect(results).toEqual(passingBut(["duplicate-webhook-id", "out-of-order"]));
    expect(report.cases.find((c) => c.id === "out-of-order")?.got).toEqual(["204", "409"]);
    expect(report.cases.find((c) => c.id === "duplicate-webhook-id")?.hint).toContain("at least once");
  });

  it("issue 22: a refusal must be a 4xx: a receiver that fails with 500 on a bad request does not pass", async () => {
    const secret = newSecret();
    const { run, results, report } = await testReceiver("/throws", secret, (request) =>
      verifyWebhook(secret, request.headers, request.body, nowSeconds()).ok
        ? { status: 204 }
        : { status: 500 },
    );
    expect(run.exitCode).toBe(2);
    expect(results).toEqual(passingBut(refusals));
    expect(report.cases.find((c) => c.id === "wrong-secret")?.hint).toContain(
      "A 5xx says the receiver failed",
    );
  });

  it("issue 22: an untrusted certificate or no answer in time fails the first case and stops (exit 2)", async () => {
    receiver.answer = () => ({ status: 204 });
    const untrusted = await hanse(
      ["webhooks", "test-receiver", receiver.url.replace("/hooks", "/tls"), "--json"],
      { env: { HANSE_WEBHOOK_SECRET: newSecret() } },
    );
    expect(untrusted.exitCode).toBe(2);
    const report = JSON.parse(untrusted.out) as ReceiverReport;
    expect(report.cases[0]).toMatchObject({ id: "signed-event", got: ["tls"], result: "fail" });
    expect(report.cases.slice(1).every((c) => c.result === "not-run")).toBe(true);
    expect(receiver.received.filter((r) => r.url === "/tls")).toHaveLength(0);

    const hung = await testReceiver("/hang", newSecret(), () => "hang", "--timeout-ms", "200");
    expect(hung.run.exitCode).toBe(2);
    expect(hung.results).toEqual({ ...passingBut([...cases], "not-run"), "signed-event": "fail" });
    expect(hung.report.cases[0]?.got).toEqual(["timeout"]);
    expect(hung.report.notes).toContain("The receiver did not answer; the other cases were not run.");
  });

  it("issue 22: http only with --insecure-http and only to loopback; the secret must be a whsec_ secret (usage errors exit 1)", async () => {
    const secret = newSecret();
    const env = { env: { HANSE_WEBHOOK_SECRET: secret } };
    const plain = await hanse(["webhooks", "test-receiver", "http://127.0.0.1:9/x"], env);
    expect(plain.exitCode).toBe(1);
    expect(plain.err).toContain("add --insecure-http");
    const remote = await hanse(["webhooks", "test-receiver", "http://192.0.2.1/x", "--insecure-http"], env);
    expect(remote.exitCode).toBe(1);
    expect(remote.err).toContain("loopback addresses only");
    const credentials = await hanse(["webhooks", "test-receiver", "https://user:pw@127.0.0.1:9/x"], env);
    expect(credentials.exitCode).toBe(1);
    expect(credentials.err).toContain("must not carry credentials");
    const noSecret = await hanse(["webhooks", "test-receiver", receiver.url]);
    expect(noSecret.exitCode).toBe(1);
    expect(noSecret.err).toContain("no secret");
    const notWhsec = await hanse([
      "webhooks",
      "test-receiver",
      receiver.url,
      "--secret",
      "hanse_ss_abcdefghijklmnopqrstuvwxyz",
    ]);
    expect(notWhsec.exitCode).toBe(1);
    expect(notWhsec.err).toContain("not a Standard Webhooks secret");

    // A receiver on this machine over plain http, in development.
    const processed: unknown[] = [];
    const answer = correctReceiver(secret, processed);
    const local = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        const reply = answer({ headers: req.headers, body, url: req.url ?? "" });
        res.writeHead(reply === "hang" ? 500 : reply.status).end();
      });
    });
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hooks`;
      const run = await hanse(["webhooks", "test-receiver", url, "--insecure-http", "--secret", secret]);
      expect(run.exitCode, run.out).toBe(0);
      expect(run.out).toContain("Sent over plain http (--insecure-http)");
      expect(processed).toHaveLength(3);
    } finally {
      await new Promise<void>((resolve) => {
        local.close(() => {
          resolve();
        });
      });
    }
  });
});

describe("hanse webhooks: secrets", () => {
  it("issue 22: no output carries a webhook secret except the one-time print at creation and rotation", () => {
    const secrets = runs.flatMap((run) =>
      [...`${run.out}\n${run.err}`.matchAll(/whsec_[A-Za-z0-9+/]+=*/g)].map((m) => m[0]),
    );
    expect(secrets.length).toBeGreaterThan(3);
    for (const secret of new Set(secrets)) {
      expect(runs.filter((run) => run.out.includes(secret) || run.err.includes(secret))).toHaveLength(1);
    }
  });
});
