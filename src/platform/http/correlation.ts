import type { FastifyRequest } from "fastify";
import { correlationIdPattern, headers } from "@hanse/client/protocol";
import { uuidv7 } from "../crypto/ids.js";

/** Fastify `genReqId`: the caller's correlation id when it is well-formed, a new one otherwise. */
export function correlationIdFor(request: { headers: FastifyRequest["headers"] }): string {
  const given = request.headers[headers.correlationId];
  return typeof given === "string" && correlationIdPattern.test(given) ? given : uuidv7();
}
