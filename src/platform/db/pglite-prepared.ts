import { Buffer } from "node:buffer";
import { messages as backend, protocol, types, type ParserOptions, type PGlite } from "@electric-sql/pglite";

type Field = InstanceType<typeof backend.Field>;

/**
 * Named prepared statements on PGlite. `PGlite.query` sends Parse, Describe, Bind, Describe,
 * Execute and Sync as five separate calls into the WebAssembly backend and parses and plans the
 * statement every time; a small insert then costs ~110 µs, a three-table CTE ~390 µs. Here a
 * statement is parsed once per instance under its name, and each call is one batch of Bind,
 * Describe, Execute and Sync (~30 µs and ~120 µs for the same two statements).
 *
 * It takes the same locks as `PGlite.query` (the transaction mutex, then the query mutex), so it
 * never runs inside another caller's transaction; calling it from inside a transaction of this
 * instance would wait for that transaction forever, which is why `Database.prepared` is for
 * statements outside any transaction.
 */
export function createPglitePrepared(pglite: PGlite) {
  const parsed = new Set<string>();
  const parsers = (pglite as unknown as { parsers: ParserOptions }).parsers;

  return async <R>(name: string, text: string, parameters: readonly unknown[]): Promise<R[]> =>
    pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(async () => {
        const parts: Uint8Array[] = [];
        const parsing = !parsed.has(name);
        if (parsing) parts.push(protocol.serialize.parse({ name, text, types: [] }));
        parts.push(
          protocol.serialize.bind({ statement: name, values: parameters.map(wireValue) }),
          protocol.serialize.describe({ type: "P" }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        );
        const messages = await pglite.execProtocolStream(Buffer.concat(parts), {
          syncToFs: false,
          throwOnError: false,
        });
        if (parsing && messages.some((m) => m.name === "parseComplete")) parsed.add(name);
        const failure = messages.find((m) => m instanceof backend.DatabaseError);
        if (failure) throw failure;
        // As PGlite.query does after a statement outside a transaction.
        if (!pglite.isInTransaction()) await pglite.syncToFs();
        return rowsOf<R>(messages, parsers);
      }),
    );
}

/**
 * A parameter as `pg` sends it: bytes in the binary format (a bytea takes them as they are,
 * without a hex text twice their size), everything else in the text format.
 */
function wireValue(value: unknown): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return value;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return JSON.stringify(value);
}

function rowsOf<R>(messages: readonly backend.BackendMessage[], parsers: ParserOptions): R[] {
  let fields: Field[] = [];
  const rows: R[] = [];
  for (const message of messages) {
    if (message instanceof backend.RowDescriptionMessage) fields = message.fields;
    else if (message instanceof backend.DataRowMessage) {
      const row: Record<string, unknown> = {};
      message.fields.forEach((value, i) => {
        const field = fields[i] as Field;
        row[field.name] = types.parseType(value, field.dataTypeID, parsers);
      });
      rows.push(row as R);
    }
  }
  return rows;
}
