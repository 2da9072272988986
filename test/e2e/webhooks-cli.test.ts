import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "../../src/platform/clock/clock.js";
import {
  createAppWithBinding,
  createCliRunner,
  setEntitlement,
  type CliBinding,
} from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from "../support/https-receiver.js";
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
    env: { HANSE_WEBHOOK_ALLOW_PRIVATE: "1", HANSE_WEBHOOK_CA_FILE: receiver.caFile },
  });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe("hanse webhooks: subscription administration (issue 22 item 4)", () => {
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
    expect(next.out).toContain("http-500");
    expect(next.out).not.toMatch(/\s204\s/);

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
