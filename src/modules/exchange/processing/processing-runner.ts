import type { OutboundEnvelope } from "../../../edifact/index.js";
import { createThreadPool, threadEntry, type ThreadPool } from "../../../platform/threads/thread-pool.js";
import type { Profile } from "../profile.js";
import {
  createProcessingRun,
  type AnalysisSummary,
  type Catalog,
  type OutboundPlan,
} from "./processing.rules.js";

/**
 * Interchanges up to this size are processed on the job's own thread; larger ones on a worker
 * thread. Measured warm on this project's 2-core machine (analyse, plan, build and serialize
 * ORDERS of 20 lines per message, median per upload): inline 0.27 / 1.98 / 13.5 / 58.5 ms at
 * 1 / 10 / 64 / 256 KiB, on a thread 0.52 / 1.93 / 10.1 / 48.7 ms. The hand-over costs about a
 * quarter of a millisecond, which only the smallest interchanges notice; at 16 KiB the inline
 * work holds the event loop for about 3 ms.
 */
export const inlineMaxBytes = 16 * 1024;

/** Memory limit of an EDIFACT thread's heap: an input that needs more fails its job, not the process. */
export const threadHeapMb = 1024;

/** One upload's EDIFACT work (`ProcessingRun`), wherever it runs. */
export interface RunningAnalysis {
  summary: AnalysisSummary;
  /** `duplicate`: plan only the CONTRL rejecting a duplicate interchange (rules/contract §8). */
  plan(catalog: Catalog, duplicate?: boolean): Promise<OutboundPlan>;
  build(envelopes: readonly OutboundEnvelope[]): Promise<Uint8Array[]>;
  /** Frees what the run holds; call it whatever happened. */
  end(): void;
}

export interface ProcessingRunner {
  analyse(bytes: Buffer, profile: Profile): Promise<RunningAnalysis>;
  /** Shuts the threads down (graceful stop: after the worker stopped its jobs). */
  close(): Promise<void>;
}

/** Several buffers as one transferable buffer and the offsets of their ends. */
export function packBuffers(parts: readonly Uint8Array[]): { buffer: ArrayBuffer; ends: number[] } {
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const bytes = new Uint8Array(new ArrayBuffer(total));
  const ends: number[] = [];
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
    ends.push(offset);
  }
  return { buffer: bytes.buffer, ends };
}

const unpackBuffers = (packed: { buffer: ArrayBuffer; ends: number[] }): Buffer[] =>
  packed.ends.map((end, i) =>
    Buffer.from(packed.buffer, packed.ends[i - 1] ?? 0, end - (packed.ends[i - 1] ?? 0)),
  );

/** The bytes in an ArrayBuffer of their own, to be moved to a thread (a pooled or shared buffer is copied). */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  const buffer = bytes.buffer;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) {
    return buffer;
  }
  return new Uint8Array(bytes).buffer;
}

export function createProcessingRunner(
  options: { inlineMaxBytes?: number; pool?: ThreadPool } = {},
): ProcessingRunner {
  const threshold = options.inlineMaxBytes ?? inlineMaxBytes;
  let pool = options.pool;
  const threads = () =>
    (pool ??= createThreadPool({
      entry: threadEntry(import.meta.url, "processing.thread"),
      resourceLimits: { maxOldGenerationSizeMb: threadHeapMb },
    }));

  return {
    async analyse(bytes, profile) {
      if (bytes.length <= threshold) {
        const run = createProcessingRun(bytes, profile);
        return {
          summary: run.summary(),
          plan: async (catalog, duplicate) => run.plan(catalog, duplicate),
          build: async (envelopes) => run.build(envelopes),
          end: () => undefined,
        };
      }
      const session = threads().session();
      try {
        const own = ownBuffer(bytes);
        const summary = await session.call<AnalysisSummary>(
          "analyse",
          { bytes: new Uint8Array(own), profile },
          [own],
        );
        return {
          summary,
          plan: (catalog, duplicate = false) => session.call<OutboundPlan>("plan", { catalog, duplicate }),
          build: async (envelopes) =>
            unpackBuffers(await session.call<{ buffer: ArrayBuffer; ends: number[] }>("build", envelopes)),
          end: () => {
            session.end();
          },
        };
      } catch (error) {
        session.end();
        throw error;
      }
    },
    async close() {
      await pool?.close();
    },
  };
}
