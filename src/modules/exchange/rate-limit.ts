import type { Clock } from "../../platform/clock/clock.js";

/**
 * A token bucket per partner API key: `capacity` requests at once, refilled at `perSecond`.
 * Process-local (each API process limits on its own); a safety net against runaway clients.
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

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.capacity)
        this.buckets.delete(key);
    }
  }
}
