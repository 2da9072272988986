import { sql, type RawBuilder } from "kysely";

const uuidv7Head = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    placing substring(int8send(floor(extract(epoch FROM `;
const uuidv7Tail = `) * 1000)::bigint) FROM 3)
    FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * A UUID version 7 made by the database, for the rows of an INSERT … SELECT, whose number the
 * caller does not know beforehand (rules/contract §1: identifiers are UUIDv7). The layout of `uuidv7` in
 * platform/crypto/ids.ts: the 48-bit millisecond time of `at` over the random bytes of
 * gen_random_uuid(), whose version bits 0100 become 0111 (bits 52 and 53 set); the variant bits
 * are already RFC 9562's.
 */
export const sqlUuidv7 = (at: Date): RawBuilder<string> =>
  sql<string>`${sql.raw(uuidv7Head)}${at}::timestamptz${sql.raw(uuidv7Tail)}`;

/** `sqlUuidv7` as SQL text, at the timestamptz expression `at` (for statements written as text). */
export const uuidv7SqlText = (at: string): string => `${uuidv7Head}${at}${uuidv7Tail}`;
