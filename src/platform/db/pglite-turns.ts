import { setImmediate as nextTurn } from "node:timers/promises";
import type { PGlite, Transaction } from "@electric-sql/pglite";

export { nextTurn };

/**
 * PGlite answers a statement without any I/O: its promise resolves in a microtask. Code that runs
 * statement after statement — a job, a sweep of old rows, a transaction of many statements — would
 * then never give the event loop a turn, and the process answered no request and ran no timer until
 * it was done (measured: `/healthz` waited 5.6 s behind 1,000 queued jobs). Through this handle
 * every statement (`query`, `exec`, and `query` inside `transaction`) first waits for the next turn
 * of the event loop, as a statement sent over a socket to PostgreSQL does. The statement itself
 * still runs on the event loop's thread.
 */
export function takingTurns(pglite: PGlite): PGlite {
  return withTurns(pglite, {
    exec: turnFirst(pglite.exec.bind(pglite)),
    transaction: <T>(run: (tx: Transaction) => Promise<T>) =>
      pglite.transaction((tx) => run(withTurns(tx, {}))),
  });
}

/** `run`, waiting for the event loop's next turn before each call. */
function turnFirst<A extends unknown[], R>(run: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    await nextTurn();
    return run(...args);
  };
}

/**
 * `target` with a `query` that takes its turn first and the members of `replaced` instead of its
 * own; every function is made once per handle, not per statement.
 */
function withTurns<T extends Pick<PGlite, "query">>(target: T, replaced: Record<string, unknown>): T {
  const members = new Map<PropertyKey, unknown>(Object.entries(replaced));
  members.set("query", turnFirst(target.query.bind(target)));
  return new Proxy(target, {
    get(object, property) {
      if (members.has(property)) return members.get(property);
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      // PGlite's methods use private fields: they must run with the instance itself as `this`.
      const bound = (value as (...a: unknown[]) => unknown).bind(object);
      members.set(property, bound);
      return bound;
    },
  });
}
