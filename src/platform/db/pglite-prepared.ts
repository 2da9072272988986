import { Buffer } from "node:buffer";
import { nextTurn } from "./pglite-turns.js";
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
  // PGlite's type parsers (its own and ours) are not in its public type; the prepared path must
  // parse results as its query() does.
  const parsers = (pglite as unknown as { parsers: ParserOptions }).parsers;
  const batch = new BatchBuffer();

  return async <R>(name: string, text: string, parameters: readonly unknown[]): Promise<R[]> => {
    // As every statement of the handle (pglite-turns.ts): the event loop gets its turn first.
    await nextTurn();
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(async () => {
        const parsing = !parsed.has(name);
        const message = batch.write(
          parsing ? protocol.serialize.parse({ name, text, types: [] }) : undefined,
          name,
          parameters.map(wireValue),
        );
        // The batch buffer is reused by the next call, which cannot start before this one ends.
        const messages = await pglite.execProtocolStream(message, { syncToFs: false, throwOnError: false });
        if (parsing && messages.some((m) => m.name === "parseComplete")) parsed.add(name);
        const failure = messages.find((m) => m instanceof backend.DatabaseError);
        if (failure) throw failure;
        // As PGlite.query does after a statement outside a transaction.
        if (!pglite.isInTransaction()) await pglite.syncToFs();
        return rowsOf<R>(messages, parsers);
      }),
    );
  };
}

/** Describe (portal ""), Execute (portal "", all rows) and Sync, as the protocol spells them. */
const TAIL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0, 0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);

/**
 * Writes [Parse] Bind Describe Execute Sync into one grow-only buffer. PGlite's own serializer
 * copies a binary parameter three times into fresh buffers (a slice, its writer's growth, the
 * flush) and a 1 MiB blob chunk left megabytes of array buffers behind per statement; here a
 * parameter is copied once, into memory that is used again.
 */
class BatchBuffer {
  private buffer = Buffer.allocUnsafe(4096);

  write(parse: Uint8Array | undefined, statement: string, values: readonly (string | Uint8Array | null)[]) {
    const name = Buffer.byteLength(statement);
    let size = (parse?.length ?? 0) + 1 + 4 + 1 + name + 1 + 2 + 2 * values.length + 2 + 2 + TAIL.length;
    for (const v of values)
      size += 4 + (v === null ? 0 : typeof v === "string" ? Buffer.byteLength(v) : v.length);
    if (this.buffer.length < size) this.buffer = Buffer.allocUnsafe(Math.max(size, this.buffer.length * 2));
    const b = this.buffer;
    let at = 0;
    if (parse) {
      b.set(parse, 0);
      at = parse.length;
    }
    const start = at;
    b[at++] = 0x42; // Bind
    at += 4; // its length, written below
    b[at++] = 0; // portal ""
    at += b.write(statement, at, "utf8");
    b[at++] = 0;
    at = b.writeInt16BE(values.length, at);
    for (const v of values) at = b.writeInt16BE(v instanceof Uint8Array ? 1 : 0, at);
    at = b.writeInt16BE(values.length, at);
    for (const v of values) {
      if (v === null) at = b.writeInt32BE(-1, at);
      else if (typeof v === "string") {
        const length = b.write(v, at + 4, "utf8");
        b.writeInt32BE(length, at);
        at += 4 + length;
      } else {
        b.writeInt32BE(v.length, at);
        b.set(v, at + 4);
        at += 4 + v.length;
      }
    }
    at = b.writeInt16BE(0, at); // results in the text format
    b.writeInt32BE(at - start - 1, start + 1);
    b.set(TAIL, at);
    at += TAIL.length;
    return b.subarray(0, at);
  }
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
