/** Injected time, so tests advance it instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export function createManualClock(start = new Date("2026-01-01T00:00:00.000Z")): Clock & {
  advance(ms: number): void;
  set(at: Date): void;
} {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (at) => {
      current = at.getTime();
    },
  };
}

/** RFC 3339 UTC with milliseconds (rules/contract §1). */
export const toTimestamp = (date: Date): string => date.toISOString();
