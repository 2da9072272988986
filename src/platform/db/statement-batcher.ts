import type { Database } from "./database.js";

/**
 * Runs the items of many concurrent callers as few statements (group commit in the process).
 *
 * `run(item)` starts a statement at once while fewer than `lanes` are running, so an idle
 * service adds no latency; under load the items that arrive while every lane is busy wait for
 * the next free lane and go together, up to `maxItems` a statement. A statement's per-call cost
 * (round trip, executor start, commit) is then shared by its items.
 *
 * A failed statement of several items is run again item by item: every caller gets its own
 * result or its own error, never a neighbour's. That is safe only for statements that are
 * atomic (one autocommit statement or one transaction) and whose items are independent.
 */
export interface StatementBatcher<I, O> {
  run(item: I): Promise<O>;
}

export interface StatementBatcherOptions<I, O> {
  /** Statements that may run at once (at least 1). */
  readonly lanes: number;
  /** Items one statement takes at most (at least 1). */
  readonly maxItems: number;
  /** Runs one statement for `items`, answering one result per item, in their order. */
  readonly runItems: (items: readonly I[]) => Promise<readonly O[]>;
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (error: unknown) => void;
}

export function createStatementBatcher<I, O>(options: StatementBatcherOptions<I, O>): StatementBatcher<I, O> {
  const lanes = Math.max(1, Math.floor(options.lanes));
  const maxItems = Math.max(1, Math.floor(options.maxItems));
  let queue: Waiting<I, O>[] = [];
  let running = 0;

  async function runOne(waiting: Waiting<I, O>): Promise<void> {
    try {
      const [result] = await options.runItems([waiting.item]);
      waiting.resolve(result as O);
    } catch (error) {
      waiting.reject(error);
    }
  }

  async function runBatch(batch: Waiting<I, O>[]): Promise<void> {
    let results: readonly O[];
    try {
      results = await options.runItems(batch.map((w) => w.item));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // Isolation: the statement rolled back as a whole; each item again on its own, all at once
      // (one after another, an unreachable database would make the last caller wait for every
      // failed attempt before its own).
      await Promise.all(batch.map(runOne));
      return;
    }
    if (results.length !== batch.length) {
      const error = new Error(
        `a batched statement answered ${results.length} results for ${batch.length} items`,
      );
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, i) => {
      waiting.resolve(results[i] as O);
    });
  }

  function drain(): void {
    while (running < lanes && queue.length > 0) {
      const batch = queue.length <= maxItems ? queue : queue.slice(0, maxItems);
      queue = batch === queue ? [] : queue.slice(maxItems);
      running++;
      void runBatch(batch).finally(() => {
        running--;
        drain();
      });
    }
  }

  return {
    run(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        drain();
      });
    },
  };
}

/**
 * Splits `items` into runs for statements whose items must have distinct keys (the runs in
 * order; an item whose key an earlier item of a run already holds goes to a later run). Each
 * entry keeps its index in `items`.
 */
export function runsOfDistinctKeys<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
): { item: T; index: number }[][] {
  const runs: { item: T; index: number }[][] = [];
  const keysOfRun: Set<string>[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    let run = keysOfRun.findIndex((keys) => !keys.has(key));
    if (run < 0) {
      run = runs.length;
      runs.push([]);
      keysOfRun.push(new Set());
    }
    runs[run]?.push({ item, index });
    keysOfRun[run]?.add(key);
  });
  return runs;
}

/**
 * Runs the prepared statement `name` for `items` that it takes as one JSON array parameter (each
 * item's object numbered by `ord`) and answers one row per item with its `ord`. Items must have
 * distinct keys within one run (`runsOfDistinctKeys`): an item whose key an earlier one holds
 * runs in a later statement, after that one committed. Outcomes come in the items' order.
 */
export async function runJsonStatements<T, R extends Record<string, unknown>, O>(
  database: Pick<Database, "prepared">,
  statement: { name: string; text: string },
  items: readonly T[],
  options: {
    keyOf: (item: T) => string;
    inputOf: (item: T) => Record<string, unknown>;
    outcomeOf: (row: R) => O;
  },
): Promise<O[]> {
  const outcomes = new Array<O>(items.length);
  for (const run of runsOfDistinctKeys(items, options.keyOf)) {
    const input = JSON.stringify(run.map((entry, ord) => ({ ord, ...options.inputOf(entry.item) })));
    const rows = await database.prepared<R>(statement.name, statement.text, [input]);
    const answered = new Set<number>();
    for (const row of rows) {
      const ord = Number(row.ord);
      const entry = run[ord];
      if (!entry) continue;
      outcomes[entry.index] = options.outcomeOf(row);
      answered.add(ord);
    }
    if (answered.size !== run.length) {
      throw new Error(`statement ${statement.name} answered ${answered.size} of ${run.length} items`);
    }
  }
  return outcomes;
}

/**
 * A lookup of one row by its id where the lookups that arrive together share one prepared
 * statement `name` (`createStatementBatcher`): the ids go as one JSON parameter, each id gets its
 * row of `relation` (an SQL query with a column `id`), or none, as one JSON column `alias`, in
 * the ids' order. `fromJson` turns that column into the caller's value (undefined: no row).
 */
export function createLookupById<O>(
  database: Pick<Database, "prepared" | "tuning">,
  statement: { name: string; relation: string; alias: string; maxItems: number },
  fromJson: (value: unknown) => O | undefined,
): (id: string) => Promise<O | undefined> {
  const { alias } = statement;
  const text = `SELECT i.ord, to_json(${alias}) AS ${alias}
FROM json_array_elements_text($1::json) WITH ORDINALITY AS i (id, ord)
LEFT JOIN (
  ${statement.relation}
) AS ${alias} ON ${alias}.id = i.id::uuid
ORDER BY i.ord`;
  const lookups = createStatementBatcher<string, O | undefined>({
    lanes: database.tuning.statementLanes,
    maxItems: statement.maxItems,
    runItems: async (ids) => {
      const rows = await database.prepared<Record<string, unknown>>(statement.name, text, [
        JSON.stringify(ids),
      ]);
      return rows.map((row) => fromJson(row[alias]));
    },
  });
  return (id) => lookups.run(id);
}
