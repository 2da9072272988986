import type { Clock } from "../clock/clock.js";

/**
 * A token bucket per key (a partner API key, a login account, a client address): `capacity`
 * requests at once, refilled at `perSecond`. Process-local (each API process limits on its own);
 * a safety net against runaway or hostile clients.
 */
export class KeyRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds until one is available. */
  take(key: string): number {
    const now = this.clock.now().getTime();
    const tokens = this.tokensAt(key, now);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      if (this.buckets.size > 10_000) this.prune(now);
      return 0;
    }
    this.buckets.set(key, { tokens, at: now });
    return this.secondsUntilToken(tokens);
  }

  /** The seconds until `key` has a token again (0: it has one now), taking nothing. */
  wait(key: string): number {
    const tokens = this.tokensAt(key, this.clock.now().getTime());
    return tokens >= 1 ? 0 : this.secondsUntilToken(tokens);
  }

  /** The tokens `key` holds at `now` (a key never seen holds a full bucket). */
  private tokensAt(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.capacity;
    return Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
  }

  private secondsUntilToken(tokens: number): number {
    return Math.max(1, Math.ceil((1 - tokens) / this.perSecond));
  }

  private prune(now: number): void {
    for (const key of this.buckets.keys()) {
      if (this.tokensAt(key, now) >= this.capacity) this.buckets.delete(key);
    }
  }
}
