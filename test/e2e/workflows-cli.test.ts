import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerWorkflowCommands } from "../../packages/client/src/cli/workflow.command.js";
import { createWorkflowsClient } from "../../packages/client/src/sdk/workflows.js";
import { createCliRunner } from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { ownDatabaseOnly } from "../support/remote-app.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const countsRequests = ownDatabaseOnly("counts the transition requests in its database");

let t: TestApp;
let baseUrl: string;
let tenant: ProvisionedTenant;

const cli = createCliRunner(
  () => ({
    HANSE_URL: baseUrl,
    HANSE_TOKEN: tenant.token,
    HANSE_CLI_CONFIG: "/nonexistent/credentials.json",
  }),
  registerWorkflowCommands,
);
const hanse = (args: string[], env: Record<string, string> = {}) => cli.hanse(args, { env });

async function createEntity(): Promise<string> {
  const response = await t.inject({
    method: "POST",
    url: "/api/v1/admin/entities",
    headers: bearer(tenant.token),
    payload: { kind: "product", attributes: { name: "CLI product" } },
  });
  return response.json<{ id: string }>().id;
}

const requestCount = async () =>
  (
    await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM workflow_transition_requests WHERE tenant_id = ${tenant.id}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;

/** A proxy that forwards the first POST but drops its answer: the client never learns the outcome. */
async function startLossyProxy(): Promise<{ url: string; posts: number; close(): Promise<void> }> {
  const state = { posts: 0 };
  const server: Server = createServer((req, res) => {
    const dropAnswer = req.method === "POST" && state.posts++ === 0;
    const upstream = httpRequest(
      new URL(req.url ?? "/", baseUrl),
      { method: req.method, headers: req.headers },
      (answer) => {
        if (dropAnswer) {
          answer.resume();
          answer.on("end", () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get posts() {
      return state.posts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  await t.worker.start();
});
afterAll(async () => {
  await t.worker.stop(2000);
  await t.close();
});

/** `hanse workflow transition` for a product, with `extra` options. */
const transitionArgs = (id: string, transition: string, ...extra: string[]): string[] => [
  "workflow",
  "transition",
  "--entity",
  "product",
  "--id",
  id,
  "--transition",
  transition,
  ...extra,
];

describe("hanse workflow transition", () => {
  it("--wait follows the status to succeeded and exits 0", async () => {
    const id = await createEntity();
    const run = await hanse(transitionArgs(id, "submit", "--wait"));
    expect(run.exitCode, run.err).toBe(0);
    expect(run.out).toContain("succeeded");
    expect(run.out).toContain("draft → in_review");
  });

  it("a failed request exits non-zero and shows the error code", async () => {
    const id = await createEntity();
    const run = await hanse(transitionArgs(id, "publish", "--wait", "--json"));
    expect(run.exitCode).toBe(2);
    expect(JSON.parse(run.out)).toMatchObject({
      status: "failed",
      error: { code: "ERR_WORKFLOW_TRANSITION_NOT_ALLOWED" },
    });
  });

  it("--key makes a repeated command a replay of the same request (any characters: a space, UTF-8)", async () => {
    const id = await createEntity();
    const args = transitionArgs(id, "submit", "--key", `Bestellung für ${id}`, "--json");
    const first = await hanse(args);
    const second = await hanse(args);
    expect(first.exitCode, first.err).toBe(0);
    const a = JSON.parse(first.out) as { requestId: string; replayed: boolean };
    const b = JSON.parse(second.out) as { requestId: string; replayed: boolean };
    expect(b.requestId).toBe(a.requestId);
    expect(b.replayed).toBe(true);
    const status = await hanse(["workflow", "status", a.requestId, "--wait", "--json"]);
    expect(status.exitCode, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ requestId: a.requestId, status: "succeeded" });
  });

  it("the SDK retries a POST whose answer was lost with the same key: one request is created", async ({
    skip,
  }) => {
    skip(countsRequests);
    const proxy = await startLossyProxy();
    try {
      const id = await createEntity();
      const before = await requestCount();
      const api = createWorkflowsClient({ baseUrl: proxy.url, token: tenant.token });
      const accepted = await api.requestTransition(
        { entity: "product", entityId: id, transition: "submit" },
        { retryDelayMs: 50 },
      );
      expect(proxy.posts).toBe(2);
      expect(accepted.replayed).toBe(true);
      expect(await requestCount()).toBe(before + 1);
      const status = await api.waitForTransition(accepted.statusUrl, { fallbackPollIntervalMs: 50 });
      expect(status).toMatchObject({
        status: "succeeded",
        result: { fromState: "draft", toState: "in_review" },
      });
    } finally {
      await proxy.close();
    }
  });

  it("a key a header cannot carry (a control character) exits 1 before anything is sent", async ({
    skip,
  }) => {
    skip(countsRequests);
    const id = await createEntity();
    const before = await requestCount();
    const run = await hanse(transitionArgs(id, "submit", "--key", "line\nbreak"));
    expect(run.exitCode).toBe(1);
    expect(run.err).toContain("idempotency key");
    expect(await requestCount()).toBe(before);
  });

  it("usage errors exit 1 before anything is sent", async ({ skip }) => {
    skip(countsRequests);
    const before = await requestCount();
    const run = await hanse(transitionArgs("x", "submit", "--payload", "[1]"));
    expect(run.exitCode).toBe(1);
    expect(await requestCount()).toBe(before);
  });
});
