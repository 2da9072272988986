import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type ResourceLimits, type Transferable } from "node:worker_threads";

/**
 * A small pool of worker threads for CPU-bound work that must not hold the event loop (issue 20:
 * EDIFACT processing of large interchanges). Work is organised in sessions: a session is pinned
 * to one thread, so a thread can keep state between a session's calls (bytes in, results out,
 * with the database round trips in between done by the caller). Threads start on first use; a
 * thread that dies (an exception outside a call, running out of its memory limit) fails the calls
 * it had and is replaced by the next session.
 */
export interface ThreadPool {
  /** A session on the thread with the fewest open sessions (a new thread while below the size). */
  session(): ThreadSession;
  /** Terminates every thread; calls still open are rejected. Idempotent. */
  close(): Promise<void>;
}

export interface ThreadSession {
  call<R>(op: string, args: unknown, transfer?: readonly Transferable[]): Promise<R>;
  /** Releases the session's state on its thread (also after a failed call). */
  end(): void;
}

/** What a thread answers for one call: the result and what of it is moved rather than copied. */
export interface ThreadReply {
  result: unknown;
  transfer?: Transferable[];
}

export type ThreadHandlers = Record<string, (session: number, args: never) => ThreadReply>;

interface Request {
  id: number;
  session: number;
  op: string;
  args: unknown;
}
type Response = { id: number; result: unknown } | { id: number; error: { name: string; message: string } };

/** The file of a thread's entry module next to `moduleUrl`: `.ts` in the sources (tsx, vitest), `.js` once built. */
export const threadEntry = (moduleUrl: string, name: string): URL =>
  new URL(`./${name}${moduleUrl.endsWith(".ts") ? ".ts" : ".js"}`, moduleUrl);

/**
 * A TypeScript entry is loaded through tsx's loader, registered in the thread itself: threads
 * do not inherit `npm start`'s loader reliably, and vitest transforms its own modules without
 * one. Built JavaScript is loaded directly.
 */
const typescriptBootstrap = `
const { workerData } = require("node:worker_threads");
import(workerData.tsx)
  .then((tsx) => { tsx.register(); return import(workerData.entry); })
  .catch((error) => { setImmediate(() => { throw error; }); });
`;

function spawn(entry: URL, resourceLimits: ResourceLimits | undefined): Worker {
  const limits = resourceLimits ? { resourceLimits } : {};
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, limits);
  return new Worker(typescriptBootstrap, {
    eval: true,
    execArgv: [],
    workerData: { entry: entry.href, tsx: tsxApiUrl() },
    ...limits,
  });
}

/** tsx's ESM API (its CommonJS build registers a path that does not exist). */
function tsxApiUrl(): string {
  const meta = import.meta as ImportMeta & { resolve?: (specifier: string) => string };
  if (typeof meta.resolve === "function") return meta.resolve("tsx/esm/api");
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  return pathToFileURL(join(dirname(manifest), "dist/esm/api/index.mjs")).href;
}

interface Thread {
  worker: Worker;
  sessions: number;
  pending: Map<number, { resolve(value: unknown): void; reject(error: Error): void }>;
  dead: boolean;
}

export function createThreadPool(options: {
  entry: URL;
  /** Threads at most (default: the cores, at most 2). */
  size?: number;
  /** Per thread, e.g. `maxOldGenerationSizeMb`: a runaway input ends its thread, not the process. */
  resourceLimits?: ResourceLimits;
}): ThreadPool {
  const size = Math.max(1, options.size ?? Math.min(2, availableParallelism()));
  const threads: Thread[] = [];
  let nextId = 1;
  let closed = false;

  const fail = (thread: Thread, error: Error) => {
    thread.dead = true;
    const index = threads.indexOf(thread);
    if (index >= 0) threads.splice(index, 1);
    for (const waiting of thread.pending.values()) waiting.reject(error);
    thread.pending.clear();
  };

  function start(): Thread {
    const worker = spawn(options.entry, options.resourceLimits);
    const thread: Thread = { worker, sessions: 0, pending: new Map(), dead: false };
    worker.on("message", (response: Response) => {
      const waiting = thread.pending.get(response.id);
      if (!waiting) return;
      thread.pending.delete(response.id);
      if ("error" in response) {
        const error = new Error(response.error.message);
        error.name = response.error.name;
        waiting.reject(error);
      } else {
        waiting.resolve(response.result);
      }
    });
    worker.on("error", (error) => {
      fail(thread, error);
    });
    worker.on("exit", (code) => {
      fail(thread, new Error(`worker thread exited (${code})`));
    });
    // An idle pool does not keep the process alive.
    worker.unref();
    threads.push(thread);
    return thread;
  }

  function pick(): Thread {
    if (closed) throw new Error("thread pool is closed");
    const idlest = threads.reduce<Thread | undefined>(
      (best, t) => (best === undefined || t.sessions < best.sessions ? t : best),
      undefined,
    );
    if (idlest && (idlest.sessions === 0 || threads.length >= size)) return idlest;
    return start();
  }

  return {
    session() {
      const thread = pick();
      const session = nextId++;
      thread.sessions++;
      let ended = false;
      return {
        call<R>(op: string, args: unknown, transfer: readonly Transferable[] = []) {
          if (thread.dead || ended) return Promise.reject(new Error("worker thread session is over"));
          const id = nextId++;
          return new Promise<R>((resolve, reject) => {
            thread.pending.set(id, { resolve, reject });
            thread.worker.ref();
            const request: Request = { id, session, op, args };
            thread.worker.postMessage(request, transfer);
          }).finally(() => {
            if (thread.pending.size === 0) thread.worker.unref();
          });
        },
        end() {
          if (ended) return;
          ended = true;
          thread.sessions--;
          if (!thread.dead) thread.worker.postMessage({ id: 0, session, op: "end", args: null });
        },
      };
    },
    async close() {
      closed = true;
      const all = threads.splice(0);
      await Promise.all(all.map((t) => t.worker.terminate()));
    },
  };
}

/**
 * The thread side: answers each call with its handler (synchronous: one call at a time per
 * thread); `end` is built in and calls `onEnd`. A handler's error goes back to its caller as its
 * name and message.
 */
export async function serveThread(handlers: ThreadHandlers, onEnd: (session: number) => void): Promise<void> {
  const { parentPort } = await import("node:worker_threads");
  if (!parentPort) throw new Error("serveThread runs in a worker thread");
  const port = parentPort;
  port.on("message", (request: Request) => {
    if (request.op === "end") {
      onEnd(request.session);
      return;
    }
    try {
      const handler = handlers[request.op];
      if (!handler) throw new Error(`unknown operation ${request.op}`);
      // The handler for `op` takes that op's arguments; the message crossed a thread as plain data,
      // so the pairing is the caller's `call` signature, not a type TypeScript can follow here.
      const reply = handler(request.session, request.args as never);
      port.postMessage({ id: request.id, result: reply.result } satisfies Response, reply.transfer ?? []);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      onEnd(request.session);
      port.postMessage({ id: request.id, error: { name: e.name, message: e.message } } satisfies Response);
    }
  });
}
