import { setTimeout as delay } from "node:timers/promises";
import { AppError } from "../../../platform/errors/app-error.js";
import { whileRenewing, type Leases } from "../../../platform/limits/index.js";

/** How long a retry waits between looks at a key another process streams, at most. */
const keyPollMaxMs = 250;

const tooManyStreams = () =>
  new AppError("ERR_B2B_EXCHANGE_RATE_LIMITED", "Too many uploads in progress for this API key.", {
    headers: { "retry-after": "1" },
  });

/**
 * The uploads in progress: one per upload key at a time, and at most `maxStreams` streams per API
 * key, across every API process (issue 31). A streamed upload holds two leases in `limit_leases`
 * (platform/limits): one of its API key's `maxStreams` stream slots and its upload key's only
 * slot; it renews them while it streams and releases them when done, and a process that dies
 * frees them when they expire (30 s).
 */
export function createUploadSlots(maxStreams: number, leases: Leases) {
  /**
   * Uploads of this process in progress, by connection and key hash. rules/contract §4: a retry that
   * arrives while the first upload with its key is still streaming waits for it (and then replays
   * or conflicts) instead of racing it; on another process it waits on the key's lease.
   */
  const inProgress = new Map<string, Promise<void>>();
  /** Uploads streaming in this process, per API key: what `atStreamLimit` sees without a statement. */
  const streaming = new Map<string, number>();

  /** Runs `run` once no other upload of this process holds `slot`. */
  async function locally<T>(slot: string, run: () => Promise<T>): Promise<T> {
    for (let first = inProgress.get(slot); first; first = inProgress.get(slot)) {
      await first;
    }
    let done = (): void => undefined;
    inProgress.set(
      slot,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    try {
      return await run();
    } finally {
      inProgress.delete(slot);
      done();
    }
  }

  /** Waits until `holder` has the upload key's lease: another process's upload with it has ended. */
  async function awaitKey(slot: string, holder: string): Promise<void> {
    for (let pause = 10; !(await leases.acquire(`upload-key:${slot}`, 1, holder));) {
      await delay(pause);
      pause = Math.min(keyPollMaxMs, pause * 2);
    }
  }

  return {
    /**
     * Runs a small upload (one statement, never streamed) once no other upload of this process
     * holds `slot` (a connection and key hash). Across processes its accept statement settles a
     * race by the key's unique index: the later one replays the earlier or conflicts with it.
     */
    exclusively: locally,

    /** Whether this process streams as many uploads of this API key as it may (the next one is 429). */
    atStreamLimit: (holder: string): boolean => (streaming.get(holder) ?? 0) >= maxStreams,

    /**
     * Runs one streamed upload of the API key `apiKey` with the upload key `slot`, or answers
     * 429 when the API key streams as many uploads as it may in all processes. Then waits until
     * no other upload holds `slot`, in this process or another.
     */
    async stream<T>(apiKey: string, slot: string, run: () => Promise<T>): Promise<T> {
      // Each stream in progress holds buffers: one key may not hold memory without bound.
      if ((streaming.get(apiKey) ?? 0) >= maxStreams) throw tooManyStreams();
      const holder = leases.newHolder();
      streaming.set(apiKey, (streaming.get(apiKey) ?? 0) + 1);
      try {
        if (!(await leases.acquire(`upload-streams:${apiKey}`, maxStreams, holder))) throw tooManyStreams();
        return await whileRenewing(leases, holder, () =>
          locally(slot, async () => {
            await awaitKey(slot, holder);
            return run();
          }),
        );
      } finally {
        const left = (streaming.get(apiKey) ?? 1) - 1;
        if (left > 0) streaming.set(apiKey, left);
        else streaming.delete(apiKey);
        // A release that fails leaves the leases to expire.
        await leases.release(holder).catch(() => undefined);
      }
    },
  };
}

export type UploadSlots = ReturnType<typeof createUploadSlots>;
