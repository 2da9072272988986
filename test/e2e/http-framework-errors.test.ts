import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResponse, rawRequest, type ParsedResponse } from "../support/raw-http.js";
import { directSocketOnly, inProcessOnly } from "../support/remote-app.js";
import { adminHeaders, createTestApp, type TestApp } from "../support/test-app.js";

// Skipped in the remote mode (test/support/remote-app.ts), each printing why:
const readsLogs = inProcessOnly("reads the server's log lines");
const nodeParser = directSocketOnly(
  "Node's own parser answers malformed requests; HAProxy refuses them first",
);

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  port = Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);
});
afterAll(async () => {
  await t.close();
});

const marker = "Zq7marker";
const headerMarker = "Hx4header";

/** Sends `head` on a raw socket; the answer must be one complete response. */
async function exchange(head: string): Promise<ParsedResponse> {
  const result = await rawRequest(port, { head });
  const response = parseResponse(result.received);
  if (!response) throw new Error(`no complete response (${result.error ?? "closed"})`);
  return response;
}

/** rules/contract §1: problem+json with a stable code and the correlation id in header and body. */
function expectProblem(response: ParsedResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  const body = JSON.parse(response.body.toString("utf8")) as Record<string, unknown>;
  expect(body).toMatchObject({ type: `urn:hanse:error:${code}`, status, code });
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  expect(response.headers["x-correlation-id"]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(body.correlationId).toBe(response.headers["x-correlation-id"]);
  expect(response.body.toString("latin1")).not.toContain(marker);
}

const auth = `Authorization: ${adminHeaders.authorization}`;

describe("issue 20 defect 5: errors raised by Fastify and Node are problem+json too (rules/contract §1)", () => {
  it("a path with invalid percent-encoding is 400 ERR_VALIDATION with the caller's correlation id, not FST_ERR_BAD_URL", async () => {
    const response = await exchange(
      `GET /api/v1/admin/entities/%FF%FE${marker} HTTP/1.1\r\nHost: x\r\n${auth}\r\nX-Correlation-ID: c-bad-url\r\nConnection: close`,
    );
    expectProblem(response, 400, "ERR_VALIDATION");
    expect(response.headers["x-correlation-id"]).toBe("c-bad-url");
    expect(response.body.toString("latin1")).not.toContain("%FF");
  });

  it("a 5,000-character id is 414 ERR_URI_TOO_LONG and does not echo the URL", async () => {
    const response = await exchange(
      `GET /api/v1/admin/entities/${marker}${"a".repeat(5000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\nConnection: close`,
    );
    expectProblem(response, 414, "ERR_URI_TOO_LONG");
  });

  it("100 KB of headers are 431 ERR_HEADERS_TOO_LARGE, read by every client of several at once, and logged without their content", async ({
    skip,
  }) => {
    skip(readsLogs);
    const head = `GET /api/v1/profile/whoami HTTP/1.1\r\nHost: x\r\n${auth}\r\n${Array.from(
      { length: 100 },
      (_, i) => `X-Filler-${String(i)}: ${marker}${headerMarker}${"h".repeat(1000)}`,
    ).join("\r\n")}`;
    const responses = await Promise.all(Array.from({ length: 8 }, () => exchange(head)));
    for (const response of responses) expectProblem(response, 431, "ERR_HEADERS_TOO_LARGE");
    const id = responses[0]?.headers["x-correlation-id"] ?? "";
    expect(t.logs.some((line) => line.includes(id))).toBe(true);
    expect(t.logs.join("\n")).not.toContain(headerMarker);
    expect(t.logs.join("\n")).not.toContain(adminHeaders.authorization);
  });

  it("a request Node's parser refuses (a bad header line, a bad chunk size) is 400 ERR_VALIDATION problem+json", async ({
    skip,
  }) => {
    skip(nodeParser);
    expectProblem(
      await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header ${marker}: 1`),
      400,
      "ERR_VALIDATION",
    );
    expectProblem(
      await exchange(
        `POST /api/v1/auth/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz${marker}\r\n`,
      ),
      400,
      "ERR_VALIDATION",
    );
    expectProblem(await exchange(`${marker} / HTTP/1.1\r\nHost: x`), 400, "ERR_VALIDATION");
  });

  it("a path parameter up to the longest a route declares reaches the route's own rules (404 of its area, not 414)", async () => {
    const response = await exchange(
      `GET /api/v1/b2b-exchange/partner/connections/${"c".repeat(150)}/mailbox HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nokey:nosecret\r\nConnection: close`,
    );
    expect(response.status).toBe(401);
    expectProblem(response, 401, "ERR_B2B_EXCHANGE_UNAUTHENTICATED");
  });

  it("a client that half-closes right after its request (HTTP/1.0 style) still reads the answer", async () => {
    const answers = await Promise.all(
      Array.from({ length: 64 }, () =>
        rawRequest(port, { head: `GET /api/v1/admin/partners/${randomUUID()} HTTP/1.0\r\n${auth}` }),
      ),
    );
    for (const answer of answers)
      expectProblem(parseResponse(answer.received) ?? failed(answer.error), 404, "ERR_NOT_FOUND");
  });
});

function failed(error?: string): never {
  throw new Error(`no complete response (${error ?? "closed"})`);
}
