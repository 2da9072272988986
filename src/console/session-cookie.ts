import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import {
  digestsEqual,
  hmacSha256,
  openSealedSecret,
  sealingKey,
  sealSecret,
  secretKeysOf,
  type SealingKeys,
} from "../platform/crypto/index.js";
import { servedOverHttps } from "./request-origin.js";
import type { HanseTables } from "../platform/db/tables.js";

/** The console's session cookie: the API session token, sealed with the service's key. */
export const cookieName = "hanse_console";
export const consolePath = "/console";
/** The header that carries the per-session CSRF token on every change. */
export const csrfHeader = "x-console-csrf";

export interface ConsoleKeys {
  /** Seals the session token into the cookie (AES-256-GCM). */
  seal: () => Promise<SealingKeys>;
  /** Derives the CSRF token from the session token (HMAC-SHA256). */
  csrf: () => Promise<Buffer>;
}

/** The console's keys, from the configured secret keys (or the instance's, kept in the database). */
export function consoleKeysOf(
  config: { HANSE_SECRET_KEY?: string | undefined; HANSE_SECRET_KEY_PREVIOUS?: string | undefined },
  db: Kysely<HanseTables>,
): ConsoleKeys {
  // A CSRF token is a MAC under the current key: a page from before a key change asks to sign in again.
  const csrfKeys = sealingKey(secretKeysOf(config), db, "console-csrf");
  return {
    seal: sealingKey(secretKeysOf(config), db, "console-session"),
    csrf: async () => (await csrfKeys()).current.key,
  };
}

export function readCookie(request: FastifyRequest, name = cookieName): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The session token of the request's cookie, or undefined when there is none or it does not open. */
export async function sessionToken(request: FastifyRequest, keys: ConsoleKeys): Promise<string | undefined> {
  const sealed = readCookie(request);
  if (!sealed) return undefined;
  try {
    return openSealedSecret(await keys.seal(), sealed, "console cookie");
  } catch {
    return undefined;
  }
}

export const sealToken = async (keys: ConsoleKeys, token: string): Promise<string> =>
  sealSecret(await keys.seal(), token);

/** The CSRF token bound to one session: whoever can read it could already use the session. */
export const csrfToken = async (keys: ConsoleKeys, token: string): Promise<string> =>
  hmacSha256(await keys.csrf(), `console-csrf\n${token}`).toString("base64url");

export async function csrfMatches(
  request: FastifyRequest,
  keys: ConsoleKeys,
  token: string,
): Promise<boolean> {
  const given = request.headers[csrfHeader];
  if (typeof given !== "string") return false;
  return digestsEqual(Buffer.from(given), Buffer.from(await csrfToken(keys, token)));
}

/** `Set-Cookie` of the session: HttpOnly, SameSite=Strict, scoped to the console, Secure over HTTPS. */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${cookieName}=${value}`,
    `Path=${consolePath}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The `Set-Cookie` that signs the browser in to the console with a session until it expires. */
export async function signedInCookie(
  keys: ConsoleKeys,
  request: FastifyRequest,
  publicUrl: string,
  session: { token: string; expiresAt: string },
): Promise<string> {
  const maxAge = (Date.parse(session.expiresAt) - Date.now()) / 1000;
  return sessionCookie(await sealToken(keys, session.token), maxAge, servedOverHttps(request, publicUrl));
}
