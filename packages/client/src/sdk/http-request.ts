import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";

/** One answer read whole: status, headers by lower-case name (repeated ones joined), body bytes. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export interface RawRequest {
  method: string;
  headers: OutgoingHttpHeaders;
  body?: string | undefined;
  /** The whole exchange, answer body included; past it the request fails with a TimeoutError. */
  timeoutMs: number;
}

/**
 * One HTTP request on node:http (node:https loaded only for an https URL), the answer read whole.
 * Redirects are answers, never followed. The JSON transport's request: a CLI command that makes
 * one pays about 10 ms for it where fetch costs 30 and undici's package 70 (docs/benchmarks.md
 * "cli"). Keep-alive comes from Node's global agents. A failed connection rejects with the
 * socket's error (its `code`: ECONNREFUSED, ECONNRESET, …).
 */
export async function sendRequest(url: URL, init: RawRequest): Promise<RawAnswer> {
  const send = url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  return new Promise<RawAnswer>((resolve, reject) => {
    const request = send(url, {
      method: init.method,
      headers: init.headers,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
    request.on("error", (error: Error) => {
      // An aborted signal surfaces as AbortError with the signal's reason (a TimeoutError) as cause.
      reject(error.name === "AbortError" && error.cause instanceof Error ? error.cause : error);
    });
    request.on("response", (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    });
    request.end(init.body);
  });
}
