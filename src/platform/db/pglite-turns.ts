import { setImmediate as nextTurn } from "node:timers/promises";
import type { PGlite, Transaction } from "@electric-sql/pglite";

export { nextTurn };

/**
 * PGlite answers a statement without any I/O: its promise resolves in a microtask. Code that runs
 * statement after statement — a job, a sweep of old rows, a transaction of many statements — would
 * then never give the event loop a turn, and the process answered no request and ran no timer until
 * it was done (measured: `/healthz` waited 5.6 s behind 1,000 queued jobs). Through this handle
 * every statement first waits for the next turn of the event loop, as a statement sent over a
 * socket to PostgreSQL does. The statement itself still runs on the event loop's thread.
 */
export function takingTurns(pglite: PGlite): PGlite {
  return queryTakingTurns(pglite, (property, target) =>
    property === "transaction"
      ? <T>(run: (tx: Transaction) => Promise<T>) =>
          target.transaction((tx) => run(queryTakingTurns(tx, () => undefined)))
      : undefined,
  );
}

type Queryable = Pick<PGlite, "query">;

/** `target` whose `query` waits for the next turn first; `extra` may replace other members. */
function queryTakingTurns<T extends Queryable>(
  target: T,
  extra: (property: string | symbol, target: T) => unknown,
): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === "query") {
        return async (...args: Parameters<Queryable["query"]>) => {
          await nextTurn();
          return object.query(...args);
        };
      }
      const replaced = extra(property, object);
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(object, property, object);
      // PGlite's methods use private fields: they must run with the instance itself as `this`.
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}
