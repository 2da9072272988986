import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sendJson, startFakeApi, systemTenantsEntry, type FakeApi } from "../sdk/testing/fake-api.js";
import { Capture, createCliRunner } from "../../../../test/support/cli-runner.js";

const tenantId = "01a2002b-23a8-7036-922f-00e75614c1d4";
const token = "fake-token-0123456789abcdefghijklmnopqrstuvwxyz";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A server whose provisioning runs pending → running → `finalState`. */
async function fakeServer(finalState: "succeeded" | "failed", scopes = ["tenants:create", "tenants:read"]) {
  let reads = 0;
  api = await startFakeApi((request, response) => {
    if (request.url === "/api/v1/profile/entrypoints") {
      sendJson(response, 200, { entrypoints: [systemTenantsEntry()] });
    } else if (request.url === "/api/v1/profile/whoami") {
      sendJson(response, 200, {
        principal: { id: "p", kind: "access_token", name: "ops" },
        tenant: { id: "s", slug: "system", type: "system" },
        scopes,
      });
    } else if (request.method === "POST" && request.url === "/api/v1/system/tenants") {
      sendJson(
        response,
        202,
        { tenantId, status: "provisioning", statusHref: `/api/v1/system/tenants/${tenantId}/provisioning` },
        { location: `/api/v1/system/tenants/${tenantId}`, "retry-after": "0" },
      );
    } else if (request.url === `/api/v1/system/tenants/${tenantId}/provisioning`) {
      const state = (["pending", "running"] as const)[reads++] ?? finalState;
      const terminal = state === finalState;
      sendJson(
        response,
        200,
        {
          tenantId,
          state,
          terminal,
          steps: [
            { name: "workflows", state: state === "pending" ? "pending" : "succeeded" },
            { name: "signing-keys", state: terminal ? finalState : state },
          ],
          error:
            state === "failed"
              ? { code: "ERR_PROVISIONING", message: "signing keys could not be stored" }
              : null,
          startedAt: null,
          completedAt: null,
        },
        terminal ? {} : { "retry-after": "0" },
      );
    } else {
      sendJson(response, 404, { status: 404, code: "ERR_NOT_FOUND", detail: "nope", correlationId: "c1" });
    }
  });
  return api;
}

const cli = createCliRunner(() => ({
  HANSE_TOKEN: token,
  HANSE_CLI_CONFIG: join(mkdtempSync(join(tmpdir(), "hanse-")), "c.json"),
}));
const run = (args: string[], url: string, tty = false) =>
  cli.hanse(args, { env: { HANSE_URL: url }, stderr: new Capture(tty) });

describe("hanse tenants create --wait", () => {
  it("exits 2 when provisioning fails, naming the error code", async () => {
    const fake = await fakeServer("failed");
    const result = await run(["tenants", "create", "--name", "A", "--slug", "acme", "--wait"], fake.url);
    expect(result.exitCode).toBe(2);
    expect(result.out).toContain("Provisioning of acme failed");
    expect(result.err).toContain("ERR_PROVISIONING");
    expect(result.err).toContain("provisioning pending [0/2]");
    expect(result.err).toContain("provisioning running [1/2]");
    expect(result.out + result.err).not.toContain(token);
  });

  it("--json prints one JSON document with the final status", async () => {
    const fake = await fakeServer("succeeded");
    const result = await run(
      ["tenants", "create", "--name", "A", "--slug", "acme", "--wait", "--json"],
      fake.url,
    );
    expect(result.exitCode, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      tenantId,
      provisioning: { state: "succeeded", terminal: true },
    });
  });

  it("redraws one progress line with \\r on a terminal", async () => {
    const fake = await fakeServer("succeeded");
    const result = await run(
      ["tenants", "create", "--name", "A", "--slug", "acme", "--wait"],
      fake.url,
      true,
    );
    expect(result.exitCode, result.err).toBe(0);
    expect(result.err).toContain("\r\x1b[2Kprovisioning running [1/2]");
    expect(result.err.endsWith("provisioning succeeded [2/2] ✓ workflows  ✓ signing-keys\n")).toBe(true);
  });

  it("with only tenants:create, --wait refuses before any POST", async () => {
    const fake = await fakeServer("succeeded", ["tenants:create"]);
    const result = await run(["tenants", "create", "--name", "A", "--slug", "acme", "--wait"], fake.url);
    expect(result.exitCode).toBe(1);
    expect(result.err).toContain("--wait needs one of the scopes");
    expect(fake.requests.some((r) => r.method === "POST")).toBe(false);
  });

  it("a missing admin password is a usage error", async () => {
    const fake = await fakeServer("succeeded");
    const result = await run(
      ["tenants", "create", "--name", "A", "--slug", "acme", "--admin-email", "a@b.c"],
      fake.url,
    );
    expect(result.exitCode).toBe(1);
    expect(result.err).toContain("--admin-password-stdin");
    expect(fake.requests).toEqual([]);
  });
});
