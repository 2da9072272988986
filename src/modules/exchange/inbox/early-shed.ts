import { createHash } from "node:crypto";
import type { Clock } from "../../../platform/clock/clock.js";

/** How long a refused (key, connection) pair is shed without asking the database again. */
export const shedMemoryMs = 5000;
/** Pairs remembered at most; past it the memory starts afresh (only refused valid keys enter). */
const maxRemembered = 10_000;

/**
 * Issue 35 item 3: cheap refusals while a tenant floods its inbox. The ordinary path refuses an
 * upload over a backlog bound after the key, the connection and the headers were checked (401,
 * 404 and 400 come first), which costs the database a round trip or three per refusal. Once a key
 * was refused on a connection that way, this process remembers the pair (the key's SHA-256 and
 * the connection, with its tenant) for `shedMemoryMs`: while the tenant or the service stays at
 * its bound, that key's further uploads to that connection are refused from the request's head,
 * before the body is read and without a statement. Any other key or connection — another
 * partner's, a wrong key — takes the ordinary path, so its answer is what it was.
 */
export function createEarlyShed(clock: Clock) {
  const refused = new Map<string, { tenantId: string; until: number }>();
  const pairOf = (connectionId: string, token: string) =>
    `${connectionId.toLowerCase()}:${createHash("sha256").update(token).digest("base64url")}`;
  return {
    /** The tenant of a pair refused within `shedMemoryMs`, else undefined. */
    tenantOf(connectionId: string, token: string): string | undefined {
      const pair = pairOf(connectionId, token);
      const entry = refused.get(pair);
      if (!entry) return undefined;
      if (entry.until > clock.now().getTime()) return entry.tenantId;
      refused.delete(pair);
      return undefined;
    },
    /** A valid key whose upload to its connection was refused over a backlog bound. */
    remember(connectionId: string, token: string, tenantId: string): void {
      if (refused.size >= maxRemembered) refused.clear();
      refused.set(pairOf(connectionId, token), { tenantId, until: clock.now().getTime() + shedMemoryMs });
    },
  };
}
