import { AppError } from "../../../platform/errors/app-error.js";

/**
 * The uploads of this process in progress: one per upload key at a time, and at most
 * `maxStreams` per API key.
 */
export function createUploadSlots(maxStreams: number) {
  /**
   * Uploads of this process in progress, by connection and key hash. CONTRACT §4: a retry that
   * arrives while the first upload with its key is still streaming waits for it (and then replays
   * or conflicts) instead of racing it. Across processes the key's unique index still allows only
   * one upload; there the later of two concurrent streams gets the replay or the 409.
   */
  const inProgress = new Map<string, Promise<void>>();
  /** Uploads streaming in this process, per API key (credential id). */
  const streaming = new Map<string, number>();

  return {
    /** Runs `run` once no other upload holds `slot` (a connection and key hash) in this process. */
    async exclusively<T>(slot: string, run: () => Promise<T>): Promise<T> {
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
    },

    /** Whether this API key streams as many uploads as it may (the next one is 429). */
    atStreamLimit: (holder: string): boolean => (streaming.get(holder) ?? 0) >= maxStreams,

    /** Runs one stream of the API key `holder`, or answers 429 when it has as many as it may. */
    async stream<T>(holder: string, run: () => Promise<T>): Promise<T> {
      // Each stream in progress holds buffers: one key may not hold memory without bound.
      const streams = streaming.get(holder) ?? 0;
      if (streams >= maxStreams) {
        throw new AppError(
          "ERR_B2B_EXCHANGE_RATE_LIMITED",
          "Too many uploads in progress for this API key.",
          {
            headers: { "retry-after": "1" },
          },
        );
      }
      streaming.set(holder, streams + 1);
      try {
        return await run();
      } finally {
        const left = (streaming.get(holder) ?? 1) - 1;
        if (left > 0) streaming.set(holder, left);
        else streaming.delete(holder);
      }
    },
  };
}

export type UploadSlots = ReturnType<typeof createUploadSlots>;
