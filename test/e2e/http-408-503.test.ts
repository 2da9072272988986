// remote mode: in-process only: Node's request time-outs made short in-process, and a shutdown of its own
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverLimits } from "../../src/platform/http/http-server.js";
import {
  connectionRefused,
  openRawConnection,
  parseResponses,
  type ParsedResponse,
} from "../support/raw-http.js";
import { createTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

const marker = "Qk9bodymarker";

/** rules/contract §1: problem+json with a stable code, the correlation id in header and body. */
function expectProblem(response: ParsedResponse | undefined, status: number, code: string) {
  expect(response?.status).toBe(status);
  expect(response?.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  const body = JSON.parse(response?.body.toString("utf8") ?? "{}") as Record<string, unknown>;
  expect(body).toMatchObject({ type: `urn:hanse:error:${code}`, status, code });
  expect(body.correlationId).toBe(response?.headers["x-correlation-id"]);
  expect(response?.body.toString("latin1")).not.toContain(marker);
}

const listen = async (t: TestApp) => Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);

// Node's request and header time-outs (platform/http/http-server.ts: 300 s and 30 s, checked every
// 30 s) made short for these tests; this file's modules are its own (vitest isolates files).
describe("a request not received in time is 408 ERR_REQUEST_TIMEOUT, then the connection closes (rules/contract §1)", () => {
  let t: TestApp;
  let port: number;
  const defaults = { ...serverLimits };
  beforeAll(async () => {
    Object.assign(serverLimits, {
      requestTimeoutMs: 1000,
      headersTimeoutMs: 500,
      connectionsCheckingIntervalMs: 50,
    });
    t = await createTestApp();
    port = await listen(t);
  });
  afterAll(async () => {
    await t.close();
    Object.assign(serverLimits, defaults);
  });

  it("a body that stalls after its first bytes: 408 problem+json with Connection: close, the stalled bytes nowhere in the answer or the logs", async () => {
    const connection = await openRawConnection(port);
    connection.write(
      "POST /api/v1/auth/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Content-Length: 100\r\n\r\n{"tenant":"${marker}`,
    );
    const { received } = await connection.closed;
    const responses = parseResponses(received);
    expect(responses).toHaveLength(1);
    expectProblem(responses[0], 408, "ERR_REQUEST_TIMEOUT");
    expect(responses[0]?.headers.connection).toBe("close");
    expect(t.logs.join("\n")).not.toContain(marker);
  });

  it("headers that stall before their end: 408 problem+json with Connection: close", async () => {
    const connection = await openRawConnection(port);
    connection.write(`GET /api/v1/meta/discovery HTTP/1.1\r\nHost: x\r\nX-Trace: ${marker}\r\n`);
    const { received } = await connection.closed;
    const responses = parseResponses(received);
    expect(responses).toHaveLength(1);
    expectProblem(responses[0], 408, "ERR_REQUEST_TIMEOUT");
    expect(responses[0]?.headers.connection).toBe("close");
  });
});

describe("during graceful shutdown a new request is 503 ERR_UNAVAILABLE with Retry-After (rules/contract §1)", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = await listen(t);
  });
  afterAll(async () => {
    // The app was closed by the test.
    await t.testDatabase.drop();
  });

  it("the request in flight when shutdown begins is answered; one that arrives after it on the same connection gets 503, Retry-After and Connection: close, then the connection closes", async () => {
    const connection = await openRawConnection(port);
    const body = JSON.stringify({
      tenant: "no-such-tenant",
      email: "nobody@example.test",
      password: "wrong",
    });
    // The first request's head arrives, its body stalls: the connection is busy, not idle, when
    // shutdown begins (idle kept-alive connections are simply closed).
    const inFlight = once(t.app.server, "request");
    connection.write(
      "POST /api/v1/auth/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
    );
    await inFlight;
    const closing = t.app.close();
    // No new connections once shutdown has begun.
    await waitUntil(() => connectionRefused(port), { what: "the server to stop listening" });
    // The rest of the first body, and a second request pipelined behind it.
    connection.write(`${body.slice(5)}GET /api/v1/meta/discovery HTTP/1.1\r\nHost: x\r\n\r\n`);
    const { received } = await connection.closed;
    const [first, second, ...rest] = parseResponses(received);
    expectProblem(first, 401, "ERR_UNAUTHENTICATED");
    expectProblem(second, 503, "ERR_UNAVAILABLE");
    expect(second?.headers["retry-after"]).toBe("5");
    expect(second?.headers.connection).toBe("close");
    expect(rest).toEqual([]);
    await closing;
  });
});
