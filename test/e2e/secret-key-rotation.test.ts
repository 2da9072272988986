// remote mode: in-process only: secret keys of its own, switched between restarts
import { execFile } from "node:child_process";
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@hanse/client/protocol";
import { resealAll } from "../../src/platform/crypto/index.js";
import { provisionTenant, submitNewProduct, type ProvisionedTenant } from "../support/fixtures.js";
import { startHttpsReceiver, webhookReceiverEnv, type HttpsReceiver } from "../support/https-receiver.js";
import { signedHeaders, type ServiceCredential } from "../support/service-signer.js";
import { bearer, bootstrapToken, createTestApp, type TestApp } from "../support/test-app.js";
import { onPostgres } from "../support/test-database.js";
import { subscribeWebhook } from "../support/webhook-subscriptions.js";

/*
 * Issue 26 item 7: HANSE_SECRET_KEY rotates. Values sealed under the old key open while it is
 * listed in HANSE_SECRET_KEY_PREVIOUS, `hanse secret-key reseal` moves them to the new key, and
 * then the old key can go. Every app below shares one database, as the processes of a
 * deployment restarted with new settings would.
 */
const oldKey = `old-${randomBytes(30).toString("base64url")}`;
const newKey = `new-${randomBytes(30).toString("base64url")}`;
const nextKey = `next-${randomBytes(30).toString("base64url")}`;
const strangerKey = `stranger-${randomBytes(30).toString("base64url")}`;
const publicUrl = "https://hanse.example";
const base = "/api/v1/public/v1/app-entitlements";

let receiver: HttpsReceiver;
let first: TestApp;
const apps: TestApp[] = [];
let tenant: ProvisionedTenant;
let webhookSecret: string;
let adapterSecret: string;
let credential: ServiceCredential;
let appId: string;
let counter = 0;
/** What the command printed and the logs of apps closed early (checked for keys with the logs). */
const commandOutput: string[] = [];

/** An app on the first app's database with `keys` (HANSE_SECRET_KEY, HANSE_SECRET_KEY_PREVIOUS). */
async function appWith(keys: Record<string, string>): Promise<TestApp> {
  const app = await createTestApp({
    env: { ...webhookReceiverEnv(receiver), HANSE_PUBLIC_URL: publicUrl, ...keys },
    sharedDatabase: first.testDatabase,
  });
  apps.push(app);
  return app;
}

/** The way a value was sealed before key ids (`v1.<iv>.<tag>.<data>`), written out independently. */
function sealV1(secretKey: string, purpose: string, plain: string): string {
  const key = createHash("sha256").update(`${purpose}\n${secretKey}`).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

const db = () => first.container.database.db;

/** Every stored sealed value, by what it is. */
async function storedSealed(): Promise<string[]> {
  const rows = await sql<{ sealed: string }>`
    SELECT secret AS sealed FROM service_credentials
    UNION ALL SELECT secret FROM webhook_subscriptions
    UNION ALL SELECT previous_secret FROM webhook_subscriptions WHERE previous_secret IS NOT NULL
    UNION ALL SELECT private_key FROM entitlement_signing_keys
    UNION ALL SELECT secret FROM workflow_lifecycle_adapters`.execute(db());
  return rows.rows.map((row) => row.sealed);
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  first = await createTestApp({
    env: { ...webhookReceiverEnv(receiver), HANSE_PUBLIC_URL: publicUrl, HANSE_SECRET_KEY: oldKey },
  });
  apps.push(first);
  tenant = await provisionTenant(first);
  const hook = await subscribeWebhook(first, tenant.token, "rotation-app", receiver.url);
  appId = hook.appId;
  webhookSecret = hook.subscription.secret;
  // The subscription's secret as it was stored before key ids: it must still open.
  await sql`UPDATE webhook_subscriptions SET secret = ${sealV1(oldKey, "entitlement-secrets", webhookSecret)}
    WHERE id = ${hook.subscription.id}`.execute(db());
  const binding = await first.inject({
    method: "POST",
    url: "/api/v1/admin/service-bindings",
    headers: bearer(tenant.token),
    payload: { appId, audience: "rotation-service", requiredCapabilities: [] },
  });
  expect(binding.statusCode, binding.body).toBe(201);
  credential = binding.json<ServiceCredential>();
  const adapter = await first.inject({
    method: "POST",
    url: "/api/v1/admin/lifecycle-adapters",
    headers: bearer(tenant.token),
    payload: { kind: "product", url: receiver.url },
  });
  expect(adapter.statusCode, adapter.body).toBe(201);
  adapterSecret = adapter.json<{ secret: string }>().secret;
});

afterAll(async () => {
  // The first app owns the database: it closes last.
  for (const app of apps.reverse()) await app.close();
  await receiver.close();
});

/** What a deployment does with its sealed secrets: sign webhooks and adapter calls, verify services, sign grants. */
async function expectEverySecretWorks(t: TestApp): Promise<void> {
  // A webhook delivery signs with the subscription's secret.
  const seen = receiver.received.length;
  const change = await t.inject({
    method: "PUT",
    url: `/api/v1/admin/apps/${appId}/entitlements/actor-${counter++}`,
    headers: bearer(tenant.token),
    payload: { status: "active", plan: "basic", capabilities: ["use"] },
  });
  expect(change.statusCode, change.body).toBe(200);
  await t.drainJobs();
  const delivery = receiver.received.slice(seen).find((r) => r.headers["webhook-id"] !== undefined);
  expect(delivery, "a webhook delivery").toBeDefined();
  expect(
    verifyWebhook(webhookSecret, delivery?.headers ?? {}, delivery?.body ?? "", Math.floor(Date.now() / 1000))
      .ok,
  ).toBe(true);

  // A service's signed request verifies against its credential's secret; a grant is signed.
  const target = `${base}/service/grants/actor-0`;
  const grant = await t.inject({
    method: "POST",
    url: target,
    headers: signedHeaders(credential, "POST", target),
  });
  expect(grant.statusCode, grant.body).toBe(200);

  // The lifecycle adapter's call signs with the adapter's secret.
  const before = receiver.received.length;
  await submitNewProduct(t, tenant, `rotation-${counter++}`);
  const call = receiver.received.slice(before).find((r) => r.body.includes("workflow.transition.requested"));
  expect(call, "an adapter call").toBeDefined();
  expect(
    verifyWebhook(adapterSecret, call?.headers ?? {}, call?.body ?? "", Math.floor(Date.now() / 1000)).ok,
  ).toBe(true);
}

const sealedLines = (t: TestApp) =>
  t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.what !== undefined);

describe("rotating HANSE_SECRET_KEY (issue 26 item 7)", () => {
  it("before the rotation: every secret works under the old key", async () => {
    await expectEverySecretWorks(first);
  });

  it("values sealed under the old key (and before key ids) still work with it in HANSE_SECRET_KEY_PREVIOUS; the start says to reseal", async () => {
    const rotated = await appWith({
      HANSE_SECRET_KEY: newKey,
      HANSE_SECRET_KEY_PREVIOUS: `${strangerKey},${oldKey}`,
    });
    await expectEverySecretWorks(rotated);
    const warnings = sealedLines(rotated);
    expect(warnings.map((line) => line.what)).toEqual(
      expect.arrayContaining(["service secret", "webhook secret", "signing key", "adapter secret"]),
    );
    expect(warnings.every((line) => String(line.msg).includes("hanse secret-key reseal"))).toBe(true);
  });

  it("hanse secret-key reseal converts every value to the new key in batches, and a second run finds nothing", async () => {
    const rotated = await appWith({ HANSE_SECRET_KEY: newKey, HANSE_SECRET_KEY_PREVIOUS: oldKey });
    const before = await storedSealed();
    const reports = await resealAll(rotated.container.sealedColumns, 1);
    const resealed = Object.fromEntries(reports.map((r) => [r.what, r.resealed]));
    // Two bindings: the webhook subscription's and the service's.
    expect(resealed).toMatchObject({ "service secret": 2, "webhook secret": 1, "adapter secret": 1 });
    expect(resealed["signing key"]).toBeGreaterThanOrEqual(1);
    expect(reports.every((r) => r.unreadable === 0 && r.changedMeanwhile === 0)).toBe(true);
    const after = await storedSealed();
    expect(after).toHaveLength(before.length);
    const keyIds = new Set(after.map((value) => value.split(".").slice(0, 2).join(".")));
    // One key id per purpose (entitlement secrets, adapter secrets), all v2, none of the old ones.
    expect(keyIds.size).toBe(2);
    for (const value of after) expect(before).not.toContain(value);
    const again = await resealAll(rotated.container.sealedColumns, 100);
    expect(again.map((r) => r.resealed + r.unreadable)).toEqual(again.map(() => 0));
  });

  it("after the reseal the service works with only the new key, and the start reports nothing", async () => {
    const only = await appWith({ HANSE_SECRET_KEY: newKey });
    await expectEverySecretWorks(only);
    expect(sealedLines(only)).toEqual([]);
  });

  it.skipIf(!onPostgres)(
    "the command `hanse secret-key reseal` (a process of its own, beside the running service) reports its counts and exits 0",
    async () => {
      const before = await storedSealed();
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "src/main.ts", "secret-key", "reseal", "--batch-size", "2"],
        {
          env: {
            ...process.env,
            DATABASE_URL: first.testDatabase.url,
            HANSE_BOOTSTRAP_TOKEN: bootstrapToken,
            HANSE_DATA_DIR: join(tmpdir(), "hanse-reseal-unused"),
            HANSE_SECRET_KEY: nextKey,
            HANSE_SECRET_KEY_PREVIOUS: newKey,
          },
        },
      );
      commandOutput.push(stdout, stderr);
      expect(stdout).toContain("webhook secret: 1 re-sealed, 0 changed meanwhile, 0 unreadable");
      expect(stdout).toContain("service secret: 2 re-sealed, 0 changed meanwhile, 0 unreadable");
      expect(stdout).toContain("adapter secret: 1 re-sealed, 0 changed meanwhile, 0 unreadable");
      expect(stderr).toBe("");
      const after = await storedSealed();
      for (const value of after) expect(before).not.toContain(value);
      await expectEverySecretWorks(await appWith({ HANSE_SECRET_KEY: nextKey }));
    },
  );

  it("a value sealed with a key the process does not have: one clear line per kind at start, no stack; the service starts", async () => {
    const stranger = await appWith({ HANSE_SECRET_KEY: strangerKey });
    const errors = sealedLines(stranger).filter((line) => line.level === 50);
    expect(errors.map((line) => line.what)).toEqual(
      expect.arrayContaining(["service secret", "webhook secret", "signing key", "adapter secret"]),
    );
    for (const line of errors) {
      expect(line.msg).toMatch(/sealed with a key this process does not have: set HANSE_SECRET_KEY_PREVIOUS/);
      expect(line.err).toBeUndefined();
      expect(line.keyIds).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{8}$/)]);
    }
    const health = await stranger.inject({ method: "GET", url: "/readyz" });
    expect(health.statusCode).toBe(200);
    // At run time: a service request signed with its (unopenable) credential is not verified.
    const target = `${base}/service/grants/actor-0`;
    const grant = await stranger.inject({
      method: "POST",
      url: target,
      headers: signedHeaders(credential, "POST", target),
    });
    // The server's fault, not the service's: 500, and the log line says which key is missing.
    expect(grant.statusCode).toBe(500);
    expect(stranger.logs.join("\n")).toMatch(
      /service secret was sealed with a key this process does not have \(key id [A-Za-z0-9_-]{8}\): set HANSE_SECRET_KEY_PREVIOUS/,
    );
    // The reseal leaves such values alone and says so.
    const reports = await resealAll(stranger.container.sealedColumns, 100);
    expect(
      // This test's tenants have no previous webhook secret and no single sign-on.
      reports.every(
        (r) =>
          (r.resealed === 0 && r.unreadable >= 1) ||
          r.what === "previous webhook secret" ||
          r.what === "SSO client secret",
      ),
    ).toBe(true);
  });

  it("from no key to a key: what was sealed under the database's own random key opens once HANSE_SECRET_KEY is set, and re-seals", async () => {
    const keyless = await createTestApp({
      env: { ...webhookReceiverEnv(receiver), HANSE_PUBLIC_URL: publicUrl },
    });
    try {
      const owner = await provisionTenant(keyless);
      const hook = await subscribeWebhook(keyless, owner.token, "keyless-app", receiver.url);
      const keyed = await createTestApp({
        env: { ...webhookReceiverEnv(receiver), HANSE_PUBLIC_URL: publicUrl, HANSE_SECRET_KEY: newKey },
        sharedDatabase: keyless.testDatabase,
      });
      expect(sealedLines(keyed).map((line) => line.what)).toContain("webhook secret");
      const seen = receiver.received.length;
      await hook.change("someone");
      await keyed.drainJobs();
      const delivery = receiver.received.slice(seen).find((r) => r.headers["webhook-id"] !== undefined);
      const now = Math.floor(Date.now() / 1000);
      expect(
        verifyWebhook(hook.subscription.secret, delivery?.headers ?? {}, delivery?.body ?? "", now).ok,
      ).toBe(true);
      const reports = await resealAll(keyed.container.sealedColumns, 100);
      expect(reports.find((r) => r.what === "webhook secret")).toMatchObject({ resealed: 1, unreadable: 0 });
      await keyed.close();
      commandOutput.push(...keyed.logs);
    } finally {
      commandOutput.push(...keyless.logs);
      await keyless.close();
    }
  });

  it("no key and no secret is ever in a log line", () => {
    const everything = [...apps.flatMap((t) => t.logs), ...commandOutput].join("\n");
    for (const secret of [
      oldKey,
      newKey,
      nextKey,
      strangerKey,
      webhookSecret,
      adapterSecret,
      credential.secret,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});
