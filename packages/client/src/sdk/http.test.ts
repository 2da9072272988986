import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HanseNetworkError } from "./errors.js";
import { createTransport } from "./http.js";

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => {
    running.close(resolve);
  });
});

/** A local server with `handler`; its base URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const created = createServer(handler);
  server = created;
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(created.address() as AddressInfo).port}`;
}

describe("the SDK's JSON transport (node:http)", () => {
  it("a server that never answers: HanseNetworkError naming the time-out, after fetchTimeoutMs", async () => {
    const baseUrl = await serve(() => undefined);
    const started = Date.now();
    const error = await createTransport({ baseUrl, fetchTimeoutMs: 200 })
      .send({ method: "GET", href: "/api/v1/meta/discovery" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HanseNetworkError);
    expect((error as Error).message).toBe("GET /api/v1/meta/discovery: no answer (TimeoutError)");
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it("an answer whose body stalls times out too", async () => {
    const baseUrl = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write("{");
    });
    const error = await createTransport({ baseUrl, fetchTimeoutMs: 200 })
      .send({ method: "GET", href: "/x" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HanseNetworkError);
  });

  it("a refused connection names the socket's code", async () => {
    const baseUrl = await serve(() => undefined);
    server?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await createTransport({ baseUrl })
      .send({ method: "GET", href: "/x" })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("GET /x: no answer (ECONNREFUSED)");
  });

  it("a redirect is an answer, not followed; repeated headers are joined; the bearer token goes along", async () => {
    const seen: string[] = [];
    const baseUrl = await serve((request, response) => {
      seen.push(`${request.method ?? ""} ${request.url ?? ""} ${request.headers.authorization ?? ""}`);
      response.setHeader("location", "/elsewhere");
      response.setHeader("x-many", ["a", "b"]);
      response.writeHead(302, { "content-type": "application/json" });
      response.end('{"moved":true}');
    });
    const answer = await createTransport({ baseUrl, token: "t0ken" }).send({
      method: "POST",
      href: "/x",
      body: {},
    });
    expect(answer.status).toBe(302);
    expect(answer.body).toEqual({ moved: true });
    expect(answer.headers["x-many"]).toBe("a, b");
    expect(seen).toEqual(["POST /x Bearer t0ken"]);
  });
});
