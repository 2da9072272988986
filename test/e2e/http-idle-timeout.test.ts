// remote mode: in-process only: HANSE_HTTP_IDLE_TIMEOUT_MS of its own on Hanse's own socket
import { connect } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  partnerUrl,
  setupPartner,
  upload,
  validOrders,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { parseResponse, rawRequest } from "../support/raw-http.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

let t: TestApp;
let tenant: ProvisionedTenant;
let p: PartnerSetup;
let port: number;

const count = async (table: "blobs" | "blob_chunks" | "exchange_uploads") =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
      t.container.database.db,
    )
  ).rows[0]?.n ?? 0;
const stored = async () => ({
  uploads: await count("exchange_uploads"),
  blobs: await count("blobs"),
  chunks: await count("blob_chunks"),
});

beforeAll(async () => {
  t = await createTestApp({ env: { HANSE_HTTP_IDLE_TIMEOUT_MS: "2500" } });
  tenant = await provisionTenant(t);
  p = await setupPartner(t, tenant.token);
  port = Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);
});
afterAll(async () => {
  await t.close();
});

describe("HANSE_HTTP_IDLE_TIMEOUT_MS: a client that stalls mid-request", () => {
  it("issue 20 defect 6: an upload whose client stops sending (without closing) is answered 408 and leaves no blob, no chunk and its key free", async () => {
    const before = await stored();
    const key = "stalled-upload";
    const exchange = rawRequest(port, {
      head:
        `POST ${partnerUrl(p.connectionId, "/inbox")} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.token}\r\n` +
        `Content-Type: application/edifact\r\nIdempotency-Key: ${key}\r\nContent-Length: ${4 * 1024 * 1024}`,
      bodyBytes: 1536 * 1024,
      stall: true,
      timeoutMs: 20_000,
    });
    // What arrived was being stored while the client was still "sending".
    await waitUntil(async () => (await stored()).chunks > before.chunks, {
      what: "the upload's first chunks",
    });
    const { received, error } = await exchange;
    expect(error).toBeUndefined();
    const response = parseResponse(received);
    expect(response?.status).toBe(408);
    expect(response?.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response?.body.toString() ?? "{}")).toMatchObject({
      status: 408,
      code: "ERR_REQUEST_TIMEOUT",
    });
    await waitUntil(async () => JSON.stringify(await stored()) === JSON.stringify(before), {
      what: "the stalled upload's blob and chunks to be deleted",
    });
    expect((await upload(t, p, validOrders("STALL"), key)).statusCode).toBe(202);
  });

  it("a JSON body that stops arriving is answered 408 problem+json and the connection closed", async () => {
    const { received, error } = await rawRequest(port, {
      head: `POST /api/v1/admin/apps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.token}\r\nContent-Type: application/json\r\nContent-Length: 100000`,
      bodyBytes: 1000,
      stall: true,
      timeoutMs: 20_000,
    });
    expect(error).toBeUndefined();
    const response = parseResponse(received);
    expect(response?.status).toBe(408);
    expect(response?.headers.connection).toBe("close");
    expect(JSON.parse(response?.body.toString() ?? "{}")).toMatchObject({ code: "ERR_REQUEST_TIMEOUT" });
  });

  it("a keep-alive connection idle between requests is kept past the idle time (its own keep-alive time applies)", async () => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const responses = () => Buffer.concat(received).toString("latin1").split("HTTP/1.1 200").length - 1;
    await new Promise<void>((resolve) =>
      socket.once("connect", () => {
        resolve();
      }),
    );
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitUntil(async () => responses() === 1, { what: "the first answer" });
    // Longer than the idle time of 2.5 s, well inside the keep-alive time of 65 s.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(socket.destroyed).toBe(false);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitUntil(async () => responses() === 2, { what: "the second answer on the same connection" });
    expect(Buffer.concat(received).toString("latin1")).not.toContain("408");
    socket.destroy();
  });
});
