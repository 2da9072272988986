// remote mode: in-process only: a manual clock and HANSE_MAILBOX_MAX_ATTEMPTS=1 of its own
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claim, listMailbox, rejectedOrders } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { serverVersion } from "../../src/version.js";
import { createCliRunner, type CliRun } from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

/** A newcomer's walk through the exchange with the CLI alone (issue 24 item 3). */
let t: TestApp;
let clock: { advance(ms: number): void };
let baseUrl: string;
let dir: string;
let tenant: ProvisionedTenant;
const env: Record<string, string> = {};
const { hanse } = createCliRunner(() => env);

const json = <T>(run: CliRun): T => {
  expect(run.exitCode, run.err).toBe(0);
  return JSON.parse(run.out) as T;
};
const ok = (run: CliRun): string => {
  expect(run.exitCode, run.err).toBe(0);
  return run.out;
};

beforeAll(async () => {
  // One claim per delivery: a lease that runs out fails the delivery, which the operator requeues.
  t = await createTestApp({ manualClock: true, env: { HANSE_MAILBOX_MAX_ATTEMPTS: "1" } });
  clock = t.container.clock as unknown as { advance(ms: number): void };
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  dir = await mkdtemp(join(tmpdir(), "hanse-admin-cli-"));
  env.HANSE_CLI_CONFIG = join(dir, "credentials.json");
  tenant = await provisionTenant(t);
}, 180_000);

afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe(
  "hanse: partner, connection, key, upload, rejection, requeue — with the CLI alone",
  { timeout: 120_000 },
  () => {
    let partnerId: string;
    let connectionId: string;
    let keyId: string;
    let partnerKey: string;
    let uploadId: string;

    it("logs in, creates a partner, a connection and a key (the secret shown once)", async () => {
      ok(
        await hanse(
          ["login", "--url", baseUrl, "--tenant", tenant.slug, "--email", tenant.email, "--password-stdin"],
          { stdin: tenant.password },
        ),
      );
      const partner = await hanse(["partners", "create", "--name", "Buyer AG"]);
      partnerId = /created partner ([0-9a-f-]{36})/.exec(ok(partner))?.[1] ?? "";
      expect(partner.out).toMatch(/^Name:\s+Buyer AG$/m);

      const connection = json<{ id: string; status: string; activeProfileRevision: { revision: number } }>(
        await hanse([
          "connections",
          "create",
          "--partner",
          partnerId,
          "--their-id",
          "5412345000013:14",
          "--our-id",
          "4012345500004:14",
          "--json",
        ]),
      );
      connectionId = connection.id;
      expect(connection).toMatchObject({ status: "active", activeProfileRevision: { revision: 1 } });
      expect(ok(await hanse(["connections", "list"]))).toMatch(
        new RegExp(
          `${connectionId}\\s+Buyer AG\\s+${partnerId}\\s+active\\s+1\\s+D96A syntax UNOC:3, theirs 5412345000013:14`,
        ),
      );

      const key = await hanse(["api-keys", "create", "--partner", partnerId, "--connections", connectionId]);
      partnerKey = /Key:\s+(\S+)/.exec(ok(key))?.[1] ?? "";
      keyId = /created API key ([0-9a-f-]{36})/.exec(key.out)?.[1] ?? "";
      expect(partnerKey).toMatch(/^[0-9a-f-]{36}:.+/);
      expect(key.out).toContain("shown only now");
      // Never again: not in list or get, as text or JSON.
      const secret = partnerKey.split(":")[1] ?? "";
      for (const args of [
        ["api-keys", "list"],
        ["api-keys", "get", keyId, "--json"],
        ["api-keys", "list", "--json"],
      ]) {
        expect(ok(await hanse(args))).not.toContain(secret);
      }
    });

    it("uploads a broken interchange; the operator sees it rejected", async () => {
      const file = join(dir, "broken.edi");
      await writeFile(file, rejectedOrders("NEWBIE1"));
      const upload = await hanse(["partner", "upload", file, "--connection", connectionId], {
        env: { HANSE_URL: baseUrl, HANSE_PARTNER_KEY: partnerKey },
      });
      uploadId = /upload ([0-9a-f-]{36}): received/.exec(ok(upload))?.[1] ?? "";
      expect(upload.out).toContain(`hanse uploads show ${uploadId}`);
      await t.drainJobs();

      const shown = ok(await hanse(["uploads", "show", uploadId]));
      expect(shown).toMatch(/Status:\s+rejected/);
      expect(shown).toMatch(/Interchange:\s+NEWBIE1/);
      const listed = json<{ items: { id: string; status: string }[]; meta: { hasMore: boolean } }>(
        await hanse(["uploads", "list", "--json"]),
      );
      expect(listed.items).toContainEqual(expect.objectContaining({ id: uploadId, status: "rejected" }));
      // rules/contract §8: the list names the partner and the connection (the ids are in --json).
      expect(ok(await hanse(["uploads", "list"]))).toMatch(
        new RegExp(`${uploadId}\\s+\\S+\\s+Buyer AG\\s+Buyer AG\\s+rejected`),
      );
      // Found by its order number (BGM 1004) and its interchange reference, newest first.
      for (const filter of [
        ["--document-number", "PO1"],
        ["--interchange-reference", "NEWBIE1"],
      ]) {
        const found = json<{ items: { id: string; partnerName: string }[] }>(
          await hanse(["uploads", "list", ...filter, "--order", "desc", "--json"]),
        );
        expect(found.items.map((u) => [u.id, u.partnerName])).toEqual([[uploadId, "Buyer AG"]]);
      }
      const wrong = await hanse(["uploads", "list", "--order", "newest"]);
      expect(wrong.exitCode).not.toBe(0);
      expect(wrong.err).toContain("asc or desc");
    });

    it("shows why the upload was rejected, what it produced, its bytes and its segments", async () => {
      const shown = ok(await hanse(["uploads", "show", uploadId]));
      expect(shown).toMatch(/^Findings:\n\s+CODE\s+LEVEL\s+WHERE\s+TEXT$/m);
      expect(shown).toMatch(/^\s+29\s+interchange\s+segment UNZ, position 12, element 1\s+\S.*$/m);
      expect(shown).toMatch(/^Outbound:\n\s+DELIVERY\s+TYPE\s+STATUS\s+INTERCHANGE\s+ANSWERS$/m);
      expect(shown).toMatch(/^\s+[0-9a-f-]{36}\s+CONTRL\s+ready\s+\d+\s+interchange$/m);
      const detail = json<{ findings: { code: string; position: number }[]; outbound: unknown[] }>(
        await hanse(["uploads", "show", uploadId, "--json"]),
      );
      expect(detail.findings).toEqual([expect.objectContaining({ code: "29", position: 12 })]);
      expect(detail.outbound).toHaveLength(1);

      const file = join(dir, "received.edi");
      expect(ok(await hanse(["uploads", "content", uploadId, "--out", file]))).toMatch(
        new RegExp(`^wrote ${String(rejectedOrders("NEWBIE1").length)} bytes of upload ${uploadId} to `),
      );
      expect(await readFile(file, "latin1")).toBe(rejectedOrders("NEWBIE1"));
      expect(ok(await hanse(["uploads", "content", uploadId]))).toBe(rejectedOrders("NEWBIE1"));
      const tree = ok(await hanse(["uploads", "segments", uploadId]));
      expect(tree).toMatch(/^\s+5\s+ SG2 NAD\+BY\+5412345000013::9'$/m);
      expect(tree).toMatch(/^\s+12 UNZ\+3\+NEWBIE1'\n\s+\^ interchange \[29\] .+ \(element 1\)$/m);
      expect(
        json<{ segments: unknown[] }>(await hanse(["uploads", "segments", uploadId, "--json"])).segments,
      ).toHaveLength(12);

      const deliveryId = (detail.outbound[0] as { deliveryAttemptId: string }).deliveryAttemptId;
      const sent = json<{ id: string; byteCount: number; contentBase64: string }>(
        await hanse(["deliveries", "content", deliveryId, "--json"]),
      );
      const bytes = Buffer.from(sent.contentBase64, "base64");
      expect(sent.byteCount).toBe(bytes.length);
      expect(bytes.toString("latin1")).toMatch(
        /^UNB\+UNOC:3\+4012345500004:14\+5412345000013:14\+.*UNH\+1\+CONTRL:2:2:UN'/,
      );
      expect(ok(await hanse(["deliveries", "segments", deliveryId]))).toMatch(/^\s+3\s+UCI\+NEWBIE1\+/m);
      // Reading is not the partner's read: the delivery is still ready, no attempt used.
      expect(ok(await hanse(["deliveries", "get", deliveryId]))).toMatch(/Status:\s+ready\n\s*Attempts:\s+0/);
    });

    it("a delivery whose lease ran out fails; requeue puts it back and partner sync collects it, named by reference", async () => {
      const deliveries = json<{ items: { id: string; uploadId: string; messageType: string }[] }>(
        await hanse(["deliveries", "list", "--all", "--json"]),
      );
      const contrl = deliveries.items.find((d) => d.uploadId === uploadId);
      expect(contrl?.messageType).toBe("CONTRL");
      const id = contrl?.id ?? "";
      // The partner claims it and never acknowledges (a lost file): with one attempt, it fails.
      const setup = { connectionId, token: partnerKey };
      expect((await claim(t, setup, id)).statusCode).toBe(200);
      clock.advance(301_000);
      await listMailbox(t, setup);
      expect(ok(await hanse(["deliveries", "get", id]))).toMatch(/Status:\s+failed/);

      const requeued = await hanse(["deliveries", "requeue", id]);
      expect(ok(requeued)).toMatch(new RegExp(`requeued delivery ${id}: ready`));
      const again = await hanse(["deliveries", "requeue", id, "--json"]);
      expect(again.exitCode).toBe(1);
      expect(JSON.parse(again.err)).toMatchObject({
        error: {
          kind: "api",
          status: 409,
          code: "ERR_CONFLICT",
          correlationId: expect.any(String) as string,
        },
      });

      const out = join(dir, "inbox");
      const sync = await hanse(
        ["partner", "sync", "--connection", connectionId, "--out", out, "--once", "--name-by", "reference"],
        { env: { HANSE_URL: baseUrl, HANSE_PARTNER_KEY: partnerKey } },
      );
      expect(ok(sync)).toContain("1 acknowledged, 0 failed");
      // One progress line with totals and rate, no line per file.
      expect(sync.err).toMatch(/^mailbox: 1 acknowledged, 0 failed, \d+ B, [\d.]+ files\/s$/m);
      expect(sync.err).not.toContain("stored");
      const files = await readdir(out);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^[A-Za-z0-9_]+-[A-Za-z0-9_]+\.CONTRL\.edi$/);
      expect(ok(await hanse(["deliveries", "get", id]))).toMatch(/Status:\s+acknowledged/);
    });

    it("a partner lost a file: the operator finds the delivery with filters and re-sends it; sync collects it again", async () => {
      // The partner's deliveries of one type and status, across pages: the next-page hint repeats the filters.
      const filters = ["--connection", connectionId, "--type", "CONTRL", "--status", "acknowledged"];
      const found = json<{ items: { id: string; uploadId: string; status: string; messageType: string }[] }>(
        await hanse(["deliveries", "list", ...filters, "--json"]),
      );
      expect(found.items.map((d) => [d.uploadId, d.status, d.messageType])).toEqual([
        [uploadId, "acknowledged", "CONTRL"],
      ]);
      const id = found.items[0]?.id ?? "";
      expect(ok(await hanse(["deliveries", "list", "--upload", uploadId, "--status", "ready"]))).toBe(
        "No deliveries.\n",
      );
      expect(
        ok(await hanse(["uploads", "list", "--status", "rejected", "--connection", connectionId])),
      ).toMatch(new RegExp(`^${uploadId}\\s+\\S+\\s+Buyer AG\\s+Buyer AG\\s+rejected`, "m"));
      const bad = await hanse(["uploads", "list", "--status", "done", "--from", "yesterday"]);
      expect(bad.exitCode).toBe(1);
      expect(bad.err).toContain(
        "/query/from: from must be a date-time such as 2026-01-31T12:00:00Z (RFC 3339)",
      );

      const resent = await hanse(["deliveries", "resend", id]);
      const newId = new RegExp(`^re-sent delivery ${id} as ([0-9a-f-]{36}): ready, CONTRL `).exec(
        ok(resent),
      )?.[1];
      expect(newId).toBeDefined();
      expect(
        json<{ resentFrom: string; status: string }>(
          await hanse(["deliveries", "get", newId ?? "", "--json"]),
        ),
      ).toMatchObject({ resentFrom: id, status: "ready" });
      const out = join(dir, "inbox-again");
      const sync = await hanse(["partner", "sync", "--connection", connectionId, "--out", out, "--once"], {
        env: { HANSE_URL: baseUrl, HANSE_PARTNER_KEY: partnerKey },
      });
      expect(ok(sync)).toContain("1 acknowledged, 0 failed");
      expect(await readdir(out)).toEqual([`${newId}.CONTRL.edi`]);
      expect(ok(await hanse(["deliveries", "get", id]))).toMatch(/Status:\s+acknowledged/);
    });

    it("--partner narrows the connections, API keys, uploads and deliveries to one partner; a bad id is refused", async () => {
      const other = /created partner ([0-9a-f-]{36})/.exec(
        ok(await hanse(["partners", "create", "--name", "Other GmbH"])),
      )?.[1];
      const otherConnection = json<{ id: string }>(
        await hanse([
          "connections",
          "create",
          "--partner",
          other ?? "",
          "--their-id",
          "5400000000001:14",
          "--our-id",
          "4012345500004:14",
          "--json",
        ]),
      ).id;
      ok(await hanse(["api-keys", "create", "--partner", other ?? "", "--connections", otherConnection]));
      const ids = async (list: string, partner: string) =>
        json<{ items: { id: string; partnerId?: string }[] }>(
          await hanse([list, "list", "--partner", partner, "--all", "--json"]),
        ).items;
      expect((await ids("connections", partnerId)).map((c) => c.id)).toEqual([connectionId]);
      expect((await ids("connections", other ?? "")).map((c) => c.id)).toEqual([otherConnection]);
      expect((await ids("api-keys", partnerId)).map((k) => k.id)).toEqual([keyId]);
      expect((await ids("api-keys", other ?? "")).map((k) => k.partnerId)).toEqual([other]);
      expect((await ids("uploads", partnerId)).length).toBeGreaterThan(0);
      expect(await ids("uploads", other ?? "")).toEqual([]);
      const deliveries = await ids("deliveries", partnerId);
      expect(deliveries.length).toBeGreaterThan(1);
      expect(await ids("deliveries", other ?? "")).toEqual([]);
      // The table shows the filter's page only, and the next-page hint repeats it.
      expect(ok(await hanse(["connections", "list", "--partner", partnerId]))).not.toContain(otherConnection);
      const paged = ok(await hanse(["deliveries", "list", "--partner", partnerId, "--limit", "1"]));
      expect(paged).toContain(`--partner ${partnerId}`);
      const bad = await hanse(["connections", "list", "--partner", "not-a-uuid"]);
      expect(bad.exitCode).toBe(1);
      expect(bad.err).toContain("/query/partnerId");
    });

    it("a new profile revision is created from the active one and activated", async () => {
      const created = json<{
        revision: number;
        directory: string;
        active: boolean;
        partnerIdentification: unknown;
      }>(await hanse(["revisions", "create", connectionId, "--directory", "D25A", "--json"]));
      expect(created).toMatchObject({
        revision: 2,
        directory: "D25A",
        active: false,
        partnerIdentification: { id: "5412345000013", qualifier: "14" },
      });
      expect(ok(await hanse(["revisions", "activate", connectionId, "2"]))).toContain(
        "revision 2 of connection",
      );
      const listed = ok(await hanse(["revisions", "list", connectionId]));
      expect(listed).toMatch(/^2\s+yes\s+/m);
      expect(listed).toMatch(/^1\s{2,}\S+Z/m);
      expect(ok(await hanse(["revisions", "show", connectionId, "2"]))).toMatch(/Revision:\s+2 \(active\)/);
    });

    it("--duplicate-window-days sets a revision's duplicate window, a revision made from it keeps it, a bad value is refused", async () => {
      const active = json<{ activeProfileRevision: { revision: number } }>(
        await hanse(["connections", "get", connectionId, "--json"]),
      ).activeProfileRevision.revision;
      const set = json<{ revision: number; duplicateWindowDays: number }>(
        await hanse(["revisions", "create", connectionId, "--duplicate-window-days", "90", "--json"]),
      );
      expect(set.duplicateWindowDays).toBe(90);
      ok(await hanse(["revisions", "activate", connectionId, String(set.revision)]));
      const kept = json<{ duplicateWindowDays: number }>(
        await hanse(["revisions", "create", connectionId, "--ordrsp", "auto", "--json"]),
      );
      expect(kept.duplicateWindowDays).toBe(90);
      const off = json<{ revision: number }>(
        await hanse(["revisions", "create", connectionId, "--duplicate-window-days", "0", "--json"]),
      );
      ok(await hanse(["revisions", "activate", connectionId, String(active)]));
      expect(ok(await hanse(["revisions", "show", connectionId, String(set.revision)]))).toMatch(
        /Duplicates:\s+rejected within 90 days/,
      );
      expect(ok(await hanse(["revisions", "show", connectionId, String(off.revision)]))).toMatch(
        /Duplicates:\s+not checked/,
      );
      const bad = await hanse(["revisions", "create", connectionId, "--duplicate-window-days", "3651"]);
      expect(bad.exitCode).not.toBe(0);
      expect(bad.err).toContain("--duplicate-window-days: a whole number from 0 to 3650");
    });

    it("revoking the key stops the partner; the error names status, code and correlation id, never the key", async () => {
      expect(ok(await hanse(["api-keys", "revoke", keyId]))).toContain(`revoked API key ${keyId}`);
      const file = join(dir, "late.edi");
      await writeFile(file, rejectedOrders("LATE"));
      const refused = await hanse(["partner", "upload", file, "--connection", connectionId], {
        env: { HANSE_URL: baseUrl, HANSE_PARTNER_KEY: partnerKey },
      });
      expect(refused.exitCode).toBe(1);
      expect(refused.err).toMatch(
        /^error: 401 Unauthorized \(ERR_\w+\): .+\n {2}correlation id: [0-9a-f-]{36}/,
      );
      expect(refused.err + refused.out).not.toContain(partnerKey.split(":")[1]);
    });

    it("audit lists the trail with a type filter; pages carry the next cursor with the filter", async () => {
      const all = json<{ items: { type: string }[] }>(await hanse(["audit", "list", "--all", "--json"]));
      expect(all.items.length).toBeGreaterThan(2);
      const type = all.items[0]?.type ?? "";
      const filtered = json<{ items: { type: string }[] }>(
        await hanse(["audit", "list", "--type", type, "--json"]),
      );
      expect(filtered.items.length).toBeGreaterThan(0);
      expect(new Set(filtered.items.map((e) => e.type))).toEqual(new Set([type]));
      const first = ok(await hanse(["audit", "list", "--limit", "1"]));
      expect(first).toMatch(/^More: hanse audit list --cursor '[^']+'$/m);
      const cursor = /--cursor '([^']+)'/.exec(first)?.[1] ?? "";
      const second = ok(await hanse(["audit", "list", "--limit", "1", "--cursor", cursor]));
      expect(second.split("\n")[1]).not.toBe(first.split("\n")[1]);
    });

    it("audit list takes the filters of §7 and --order; verify checks the chain; export writes NDJSON", async () => {
      const newest = json<{ items: { type: string; occurredAt: string }[] }>(
        await hanse(["audit", "list", "--order", "desc", "--limit", "5", "--json"]),
      );
      const times = newest.items.map((e) => e.occurredAt);
      expect([...times].sort().reverse()).toEqual(times);
      const prefixed = json<{ items: { type: string }[] }>(
        await hanse(["audit", "list", "--type", "partner.", "--all", "--json"]),
      );
      expect(prefixed.items.length).toBeGreaterThan(0);
      expect(prefixed.items.every((e) => e.type.startsWith("partner."))).toBe(true);
      const none = await hanse(["audit", "list", "--from", "2099-01-01T00:00:00Z"]);
      expect(none.out).toContain("No audit records.");
      const bad = await hanse([
        "audit",
        "list",
        "--from",
        "2026-11-02T00:00:00Z",
        "--before",
        "2026-11-01T00:00:00Z",
      ]);
      expect(bad.exitCode).toBe(1);
      expect(bad.err).toContain("occurredBefore");

      const verified = await hanse(["audit", "verify"]);
      expect(verified.exitCode).toBe(0);
      expect(verified.out).toMatch(/^verified: \d+ sealed records, checked through /);
      const exported = await hanse(["audit", "export"]);
      expect(exported.exitCode).toBe(0);
      const lines = exported.out.trimEnd().split("\n");
      const all = json<{ items: unknown[] }>(await hanse(["audit", "list", "--all", "--json"]));
      expect(lines.length).toBe(all.items.length);
      for (const line of lines) expect(JSON.parse(line)).toHaveProperty("seal");
    });

    it("entities and access tokens: create, list, get, revoke; a token is printed once and never logged", async () => {
      const entity = json<{ id: string; state: string }>(
        await hanse([
          "entities",
          "create",
          "--kind",
          "product",
          "--attributes",
          '{"gtin":"4006381333931"}',
          "--json",
        ]),
      );
      expect(ok(await hanse(["entities", "list", "--kind", "product"]))).toContain(entity.id);
      expect(ok(await hanse(["entities", "get", entity.id]))).toContain('{"gtin":"4006381333931"}');
      // The entity's transition requests with status and outcome; an unknown status is refused.
      expect(ok(await hanse(["transition-requests", "list", "--entity", entity.id]))).toContain(
        "No transition requests.",
      );
      ok(
        await hanse([
          "workflow",
          "transition",
          "--entity",
          "product",
          "--id",
          entity.id,
          "--transition",
          "submit",
        ]),
      );
      await t.drainJobs();
      const requests = ok(await hanse(["transition-requests", "list", "--entity", entity.id]));
      expect(requests).toMatch(/submit\s+succeeded\s+draft -> in_review/);
      expect(ok(await hanse(["transition-requests", "list", "--status", "failed"]))).not.toContain(entity.id);
      const badStatus = await hanse(["transition-requests", "list", "--status", "done"]);
      expect(badStatus.exitCode).not.toBe(0);
      expect(badStatus.err).toContain("pending, processing, succeeded, failed");

      const token = json<{ id: string; token: string }>(
        await hanse(["access-tokens", "create", "--name", "ci", "--scopes", "admin:read", "--json"]),
      );
      const listed = ok(await hanse(["access-tokens", "list"]));
      expect(listed).toMatch(new RegExp(`${token.id}\\s+active\\s+-\\s+ci`));
      expect(listed).not.toContain(token.token);
      expect(ok(await hanse(["access-tokens", "revoke", token.id]))).toContain("revoked access token");
      expect(ok(await hanse(["access-tokens", "get", token.id]))).toMatch(/State:\s+revoked/);

      const logs = t.logs.join("\n");
      expect(logs).not.toContain(token.token);
      expect(logs).not.toContain(partnerKey.split(":")[1]);
    });
  },
);

describe("hanse: one output and error format for every command", () => {
  it("an API error names status, code, detail and the correlation id the server logged", async () => {
    const missing = "01a20000-0000-7000-8000-000000000000";
    const run = await hanse(["partners", "get", missing]);
    expect(run.exitCode).toBe(1);
    expect(run.out).toBe("");
    const correlation = /correlation id: ([0-9a-f-]{36})/.exec(run.err)?.[1] ?? "";
    expect(run.err).toMatch(
      /^error: 404 Not Found \(ERR_NOT_FOUND\): .+\n {2}request: GET \/api\/v1\/admin\/partners\//,
    );
    expect(t.logs.some((line) => line.includes(correlation))).toBe(true);
    const asJson = await hanse(["partners", "get", missing, "--json"]);
    expect(JSON.parse(asJson.err)).toMatchObject({
      error: { kind: "api", status: 404, code: "ERR_NOT_FOUND", correlationId: expect.any(String) as string },
    });
  });

  it("usage errors exit 1 before any request", async () => {
    const run = await hanse(["partners", "list", "--limit", "0"]);
    expect(run.exitCode).toBe(1);
    expect(run.err).toContain("--limit: a whole number from 1 to 100");
  });

  it("--version prints the package version", async () => {
    const run = await hanse(["--version"]);
    expect(run.out.trim()).toBe(serverVersion);
  });

  it("completion bash completes commands and subcommands, skipping option values", async () => {
    const script = ok(await hanse(["completion", "bash"]));
    const path = join(dir, "completion.bash");
    await writeFile(path, script);
    const complete = async (...words: string[]) => {
      const { stdout } = await promisify(execFile)("bash", [
        "-c",
        `source ${path}; COMP_WORDS=(hanse ${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length}; _hanse; echo "\${COMPREPLY[*]}"`,
      ]);
      return stdout.trim().split(" ").sort();
    };
    expect(await complete("par")).toEqual(["partner", "partners"]);
    expect(await complete("deliveries", "")).toEqual(
      expect.arrayContaining(["list", "get", "show", "requeue", "resend"]),
    );
    expect(await complete("audit", "list", "--type", "x", "--")).toEqual(
      expect.arrayContaining(["--type", "--limit", "--cursor", "--all", "--json"]),
    );
    const zsh = ok(await hanse(["completion", "zsh"]));
    expect(zsh).toMatch(/^#compdef hanse/);
    expect(zsh).toContain("'requeue:Put a failed delivery back into the mailbox (its attempts start again)'");
  });
});
