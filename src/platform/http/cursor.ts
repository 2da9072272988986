import type { CreationPosition, ListOrder } from "../db/creation-order.js";
import { AppError } from "../errors/app-error.js";
import { digestsEqual, hmacSha256 } from "../crypto/secrets.js";

/**
 * Opaque, tamper-evident cursors bound to the caller's scope (rules/contract §1): the position is
 * MACed together with a binding (tenant, connection, list), so a cursor from another scope is 400.
 */
export interface CursorCodec {
  encode(binding: string, position: unknown): string;
  decode<T>(binding: string, cursor: string): T;
}

/** `previousKeys`: MAC keys replaced by `key` (HANSE_SECRET_KEY_PREVIOUS): their cursors still decode. */
export function createCursorCodec(key: Buffer, previousKeys: readonly Buffer[] = []): CursorCodec {
  const macWith = (k: Buffer, binding: string, body: string) =>
    hmacSha256(k, `${binding}\n${body}`).subarray(0, 16);
  const mac = (binding: string, body: string) => macWith(key, binding, body);
  return {
    encode(binding, position) {
      const body = Buffer.from(JSON.stringify(position)).toString("base64url");
      return `${body}.${mac(binding, body).toString("base64url")}`;
    },
    decode<T>(binding: string, cursor: string): T {
      const [body, tag, rest] = cursor.split(".");
      const invalid = () =>
        new AppError("ERR_VALIDATION", "The cursor is not valid for this list.", {
          errors: [{ pointer: "/query/cursor", message: "invalid cursor" }],
        });
      if (!body || !tag || rest !== undefined) throw invalid();
      const given = Buffer.from(tag, "base64url");
      if (![key, ...previousKeys].some((k) => digestsEqual(given, macWith(k, binding, body))))
        throw invalid();
      try {
        return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as T;
      } catch {
        throw invalid();
      }
    },
  };
}

/** A page of a list (rules/contract §1); `nextCursor` is set exactly when `hasMore` is. */
export interface ListPage<T> {
  items: T[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

/** The position of a row in a list ordered by `(created_at, id)`. */
export const toCreationPosition = (row: { created_at: Date; id: string }) => ({
  createdAt: row.created_at.toISOString(),
  id: row.id,
});

/**
 * Cuts a page from `rows`, fetched with one row more than `limit` so that the extra one says
 * whether there are more; the cursor carries `position(last kept row)` bound to `binding`.
 */
export function pageOf<T>(
  cursors: CursorCodec,
  binding: string,
  rows: readonly T[],
  limit: number,
  position: (last: T) => unknown,
): ListPage<T> {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = items.at(-1);
  return {
    items,
    meta: {
      hasMore,
      nextCursor: hasMore && last !== undefined ? cursors.encode(binding, position(last)) : null,
    },
  };
}

/** What a list request asks for: at most `limit` items after the position its cursor holds. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  /** `asc` (the default) or `desc` (rules/contract §8); the cursor is bound to it. */
  order?: ListOrder | undefined;
}

/**
 * A list's cursor binding with its order: a cursor issued for one order is the 400 of a cursor of
 * another list when used with the other. `asc` keeps the binding as it was (older cursors stay valid).
 */
export const orderedBinding = (binding: string, order: ListOrder | undefined): string =>
  order === "desc" ? `${binding}:desc` : binding;

/**
 * One page of a list, the steps every list repeats: the cursor is decoded against `binding` with
 * the request's order (a cursor of another list, scope or order is 400), `fetch` reads up to
 * `limit + 1` rows after its position in `request.order`, the page is cut (`pageOf`) and its
 * rows are mapped by `view`.
 */
export async function readPage<R, P, V>(
  cursors: CursorCodec,
  binding: string,
  request: PageRequest,
  list: {
    fetch: (after: P | undefined, order: ListOrder) => Promise<readonly R[]>;
    position: (last: R) => P;
    view: (row: R) => V;
  },
): Promise<ListPage<V>> {
  const bound = orderedBinding(binding, request.order);
  const after = request.cursor ? cursors.decode<P>(bound, request.cursor) : undefined;
  const rows = await list.fetch(after, request.order ?? "asc");
  const { items, meta } = pageOf(cursors, bound, rows, request.limit, list.position);
  return { items: items.map((row) => list.view(row)), meta };
}

/** `readPage` of a list in creation order (`creationPage`): the position is `toCreationPosition`. */
export function readCreationPage<R extends { created_at: Date; id: string }, V>(
  cursors: CursorCodec,
  binding: string,
  request: PageRequest,
  fetch: (after: CreationPosition | undefined, order: ListOrder) => Promise<readonly R[]>,
  view: (row: R) => V,
): Promise<ListPage<V>> {
  return readPage(cursors, binding, request, { fetch, position: toCreationPosition, view });
}
