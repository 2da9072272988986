import type { FastifyRequest } from "fastify";

/**
 * Whether a state-changing console request comes from a console page of this service: it must
 * name its origin, that origin must be the service's own (as the request reached it, or its
 * public URL), and a browser's `Sec-Fetch-Site`, when sent, must say `same-origin`.
 */
export function isSameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return false;
  const origin = request.headers.origin;
  if (typeof origin !== "string") return false;
  return origin === `${request.protocol}://${request.host}` || origin === new URL(publicUrl).origin;
}

/** The cookie is `Secure` when the console is served over HTTPS (directly, behind a trusted proxy, or by its public URL). */
export const servedOverHttps = (request: FastifyRequest, publicUrl: string): boolean =>
  request.protocol === "https" || publicUrl.startsWith("https:");
