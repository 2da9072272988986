import { isIPv4, isIPv6 } from "node:net";
import type { Clock } from "../../../platform/clock/clock.js";
import type { Database } from "../../../platform/db/database.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { createRateLimits, rateLimitKey } from "../../../platform/limits/index.js";

/**
 * Failed sign-ins (OWASP Authentication Cheat Sheet, "Protect against automated attacks"; these
 * counters are kept in the database, so they hold across every API process — platform/limits):
 * - per account and client address: ten failures, then one per 30 s. Answered 429 before the
 *   password is checked, so only the address that failed is held back, never the account.
 * - per client address: a hundred failures (any accounts), then one per second; 429 the same way.
 * - per account, from every address together: a hundred failures (HANSE_SIGN_IN_ACCOUNT_FAILURES),
 *   then one per 30 s. Past this
 *   ceiling the account is not locked: each attempt waits its turn, one password check per
 *   second for the account, and a correct password is accepted. Only when twenty attempts are
 *   already waiting is one refused with 429.
 */
export const signInLimits = {
  perAccountAndAddress: { burst: 10, perSecond: 1 / 30 },
  perAddress: { burst: 100, perSecond: 1 },
  /** `burst`: HANSE_SIGN_IN_ACCOUNT_FAILURES. */
  perAccount: { burst: 100, perSecond: 1 / 30 },
  /** Past the account ceiling: the spacing of password checks for that account. */
  delayMs: 1000,
  /** Past the account ceiling: attempts that may wait at once. */
  maxWaiting: 20,
};

/**
 * The address a limit counts: an IPv4 address as it is, an IPv6 address by its /64 network
 * (one subscriber usually holds a whole /64, so its addresses count as one).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = address.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

const rateLimited = (seconds: number) =>
  new AppError("ERR_RATE_LIMITED", "Too many failed sign-ins; try again later.", {
    headers: { "retry-after": String(seconds) },
  });

export function createSignInThrottle(
  clock: Clock,
  limits: typeof signInLimits,
  database: Pick<Database, "prepared">,
) {
  const store = createRateLimits({ database, clock });
  const perAccount = { burst: limits.perAccount.burst, perSecond: limits.perAccount.perSecond };
  const keysOf = (account: string, address: string) => [
    { key: rateLimitKey("sign-in-pair", `${account}\n${address}`), limit: limits.perAccountAndAddress },
    { key: rateLimitKey("sign-in-address", address), limit: limits.perAddress },
    { key: rateLimitKey("sign-in-account", account), limit: perAccount },
  ];

  /** Waits for the account's next turn (real time: this delay is what slows a distributed guesser). */
  async function awaitTurn(account: string): Promise<void> {
    const turn = await store.reserveTurn(
      rateLimitKey("sign-in-turn", account),
      limits.delayMs,
      limits.maxWaiting,
      Date.now(),
    );
    if ("retryAfterSeconds" in turn) throw rateLimited(turn.retryAfterSeconds);
    if (turn.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, turn.waitMs));
  }

  return {
    /**
     * Before the password is checked: 429 for an address that failed too often (for this
     * account or for any), and past the account's ceiling, a wait for the account's turn.
     */
    async admit(account: string, clientAddress: string): Promise<void> {
      const [pair = 0, address = 0, accountWait = 0] = await store.wait(
        keysOf(account, addressKey(clientAddress)),
      );
      const wait = Math.max(pair, address);
      if (wait > 0) throw rateLimited(wait);
      if (accountWait > 0) await awaitTurn(account);
    },

    /** A failed sign-in counts against the pair, the address and the account (one statement). */
    async recordFailure(account: string, clientAddress: string): Promise<void> {
      await store.takeEach(keysOf(account, addressKey(clientAddress)));
    },
  };
}
