import { describe, expect, it } from "vitest";
import { createStatementBatcher, runJsonStatements, runsOfDistinctKeys } from "./statement-batcher.js";

/** A statement runner the test releases by hand, recording every statement's items. */
function manualStatements(
  answer: (items: readonly number[]) => readonly string[] = (items) => items.map(String),
) {
  const statements: { items: readonly number[]; release: (fail?: Error) => void }[] = [];
  let running = 0;
  let maxRunning = 0;
  const runItems = (items: readonly number[]) =>
    new Promise<readonly string[]>((resolve, reject) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      statements.push({
        items,
        release: (fail) => {
          running--;
          if (fail) reject(fail);
          else resolve(answer(items));
        },
      });
    });
  return { statements, runItems, maxRunning: () => maxRunning };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("statement batcher", () => {
  it("runs a lone item at once, as a statement of its own", async () => {
    const s = manualStatements();
    const batcher = createStatementBatcher({ lanes: 2, maxItems: 10, runItems: s.runItems });
    const result = batcher.run(7);
    expect(s.statements.map((x) => x.items)).toEqual([[7]]);
    s.statements[0]?.release();
    await expect(result).resolves.toBe("7");
  });

  it("items arriving while every lane is busy share the next statement, in order, at most maxItems", async () => {
    const s = manualStatements();
    const batcher = createStatementBatcher({ lanes: 1, maxItems: 3, runItems: s.runItems });
    const results = [1, 2, 3, 4, 5].map((n) => batcher.run(n));
    expect(s.statements.map((x) => x.items)).toEqual([[1]]);
    s.statements[0]?.release();
    await settled();
    expect(s.statements.map((x) => x.items)).toEqual([[1], [2, 3, 4]]);
    s.statements[1]?.release();
    await settled();
    expect(s.statements.map((x) => x.items)).toEqual([[1], [2, 3, 4], [5]]);
    s.statements[2]?.release();
    expect(await Promise.all(results)).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("never runs more than `lanes` statements at once", async () => {
    const s = manualStatements();
    const batcher = createStatementBatcher({ lanes: 2, maxItems: 2, runItems: s.runItems });
    const results = Array.from({ length: 9 }, (_, n) => batcher.run(n));
    for (let released = 0; released < 20 && s.statements.some((x) => x.items.length > 0); released++) {
      const open = s.statements.shift();
      open?.release();
      await settled();
    }
    expect(await Promise.all(results)).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(s.maxRunning()).toBe(2);
  });

  it("a failed statement of several items runs each item alone: every caller gets its own outcome", async () => {
    const poisoned = new Error("item 3 breaks the statement");
    const seen: number[][] = [];
    const batcher = createStatementBatcher<number, string>({
      lanes: 1,
      maxItems: 10,
      runItems: async (items) => {
        seen.push([...items]);
        await settled();
        if (items.includes(3)) throw poisoned;
        return items.map((n) => `ok ${n}`);
      },
    });
    const results = [1, 2, 3, 4].map((n) => batcher.run(n).catch((error: unknown) => error));
    expect(await Promise.all(results)).toEqual(["ok 1", "ok 2", poisoned, "ok 4"]);
    // 1 alone (the lane was free), then 2–4 together, which failed, then each of them alone.
    expect(seen).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("when every statement fails (an unreachable database), the items of a batch are retried at once, not one after another", async () => {
    let running = 0;
    let maxRunning = 0;
    const batcher = createStatementBatcher<number, string>({
      lanes: 1,
      maxItems: 10,
      runItems: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await settled();
        running--;
        throw new Error("connection refused");
      },
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => batcher.run(n).catch((e: unknown) => e)));
    expect(results.map((e) => (e as Error).message)).toEqual(Array(4).fill("connection refused"));
    // 1 alone, then 2–4 together, then 2, 3 and 4 alone side by side.
    expect(maxRunning).toBe(3);
  });

  it("a statement that answers the wrong number of results fails each of its callers", async () => {
    const batcher = createStatementBatcher<number, string>({
      lanes: 1,
      maxItems: 10,
      runItems: async () => ["only one"],
    });
    const first = batcher.run(1);
    const rest = [batcher.run(2), batcher.run(3)];
    await expect(first).resolves.toBe("only one");
    for (const r of rest) await expect(r).rejects.toThrow(/answered 1 results for 2 items/);
  });
});

describe("runsOfDistinctKeys", () => {
  it("puts an item whose key an earlier item holds into a later run, keeping every index", () => {
    const items = ["a1", "b1", "a2", "c1", "a3", "b2"];
    const runs = runsOfDistinctKeys(items, (item) => item.charAt(0));
    expect(runs.map((run) => run.map((e) => e.item))).toEqual([["a1", "b1", "c1"], ["a2", "b2"], ["a3"]]);
    expect(runs.flat().map((e) => items[e.index])).toEqual(runs.flat().map((e) => e.item));
  });

  it("no items, no runs", () => {
    expect(runsOfDistinctKeys([], String)).toEqual([]);
  });
});

describe("runJsonStatements", () => {
  const statement = { name: "s", text: "SELECT" };
  it("sends each run as one JSON array numbered by ord, and answers in the items' order", async () => {
    const sent: unknown[] = [];
    const database = {
      prepared: async <R>(_name: string, _text: string, parameters: readonly unknown[]) => {
        const input = JSON.parse(String(parameters[0])) as { ord: number; v: string }[];
        sent.push(input);
        return [...input].reverse().map((i) => ({ ord: i.ord, v: i.v.toUpperCase() })) as R[];
      },
    };
    const outcomes = await runJsonStatements(database, statement, ["a1", "b1", "a2"], {
      keyOf: (item) => item.charAt(0),
      inputOf: (item) => ({ v: item }),
      outcomeOf: (row: { ord: number; v: string }) => row.v,
    });
    expect(outcomes).toEqual(["A1", "B1", "A2"]);
    expect(sent).toEqual([
      [
        { ord: 0, v: "a1" },
        { ord: 1, v: "b1" },
      ],
      [{ ord: 0, v: "a2" }],
    ]);
  });

  it("an item the statement answers no row for fails the call", async () => {
    const database = { prepared: async <R>() => [{ ord: 0 }] as R[] };
    await expect(
      runJsonStatements(database, statement, ["x", "y"], {
        keyOf: String,
        inputOf: () => ({}),
        outcomeOf: () => true,
      }),
    ).rejects.toThrow(/answered 1 of 2 items/);
  });
});
