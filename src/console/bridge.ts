import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { AppError } from "../platform/errors/app-error.js";
import { sendProblem } from "../platform/http/problem.js";
import { headers } from "@hanse/client/protocol";

/** Request headers the console passes on to the API; everything else of the browser's stays behind. */
const forwardedRequestHeaders = [
  "accept",
  "content-type",
  headers.idempotencyKey,
  headers.workflowIdempotencyKey,
  // The workflow routes name the credential's tenant (the API checks it is the session's).
  headers.tenantId,
];
/** Answer headers passed back to the browser. */
const forwardedReplyHeaders = [
  "content-type",
  headers.correlationId,
  headers.retryAfter,
  headers.location,
  headers.idempotentReplayed,
];

export interface Forwarded {
  method: HTTPMethods;
  /** Path and query under `/api/v1`. */
  url: string;
  token?: string;
  body?: Buffer | string;
}

/** A path under /api/v1 without dot segments (plain or percent-encoded), so it cannot leave it. */
export const isPlainApiPath = (path: string): boolean =>
  !path.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment));

/**
 * Calls the public API in-process as the browser would with a bearer credential, and answers
 * with its status, body and the headers above. The correlation id stays the console request's.
 */
export async function forwardToApi(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  forwarded: Forwarded,
): Promise<FastifyReply> {
  const passed: Record<string, string> = { [headers.correlationId]: request.id };
  for (const name of forwardedRequestHeaders) {
    const value = request.headers[name];
    if (typeof value === "string") passed[name] = value;
  }
  if (forwarded.token) passed.authorization = `Bearer ${forwarded.token}`;
  const answer = await app.inject({
    method: forwarded.method,
    url: `/api/v1${forwarded.url}`,
    headers: passed,
    remoteAddress: request.ip,
    ...(forwarded.body !== undefined && forwarded.body.length > 0 ? { payload: forwarded.body } : {}),
  });
  reply.code(answer.statusCode);
  for (const name of forwardedReplyHeaders) {
    const value = answer.headers[name];
    if (typeof value === "string" || typeof value === "number") reply.header(name, value);
  }
  return reply.send(answer.rawPayload);
}

export const refuse = (
  reply: FastifyReply,
  code: "ERR_FORBIDDEN" | "ERR_UNAUTHENTICATED" | "ERR_NOT_FOUND",
  detail: string,
) => sendProblem(reply, new AppError(code, detail));
