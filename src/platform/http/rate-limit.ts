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
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    const refilled = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    if (refilled >= 1) {
      this.buckets.set(key, { tokens: refilled - 1, at: now });
      if (this.buckets.size > 10_000) this.prune(now);
      return 0;
    }
    this.buckets.set(key, { tokens: refilled, at: now });
    return Math.max(1, Math.ceil((1 - refilled) / this.perSecond));
  }

  /** The seconds until `key` has a token again (0: it has one now), taking nothing. */
  wait(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const now = this.clock.now().getTime();
    const refilled = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    return refilled >= 1 ? 0 : Math.max(1, Math.ceil((1 - refilled) / this.perSecond));
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.capacity)
        this.buckets.delete(key);
    }
  }
}
