import { describe, expect, it } from "vitest";
import { createCursorCodec, pageOf, toCreationPosition } from "./cursor.js";

const cursors = createCursorCodec(Buffer.alloc(32, 7));
const rows = [1, 2, 3].map((n) => ({ id: `id-${n}`, created_at: new Date(Date.UTC(2024, 0, n)) }));

describe("pageOf", () => {
  it("keeps `limit` rows and points the cursor after the last kept one when a further row exists", () => {
    const page = pageOf(cursors, "list:t1", rows, 2, toCreationPosition);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.meta.hasMore).toBe(true);
    expect(cursors.decode("list:t1", page.meta.nextCursor ?? "")).toEqual({
      createdAt: "2024-01-02T00:00:00.000Z",
      id: "id-2",
    });
  });

  it("has no cursor on the last page, nor on an empty one", () => {
    expect(pageOf(cursors, "list:t1", rows, 3, toCreationPosition).meta).toEqual({
      hasMore: false,
      nextCursor: null,
    });
    expect(pageOf(cursors, "list:t1", [], 3, toCreationPosition)).toEqual({
      items: [],
      meta: { hasMore: false, nextCursor: null },
    });
  });

  it("binds the cursor to its list", () => {
    const { nextCursor } = pageOf(cursors, "list:t1", rows, 1, (last) => ({ id: last.id })).meta;
    expect(() => cursors.decode("list:t2", nextCursor ?? "")).toThrow(/cursor/);
  });
});

describe("cursors across a rotation of HANSE_SECRET_KEY", () => {
  it("a cursor made under a previous key still decodes; one under a key not configured is 400", () => {
    const old = createCursorCodec(Buffer.alloc(32, 1));
    const cursor = old.encode("list:t1", { id: "id-1" });
    const rotated = createCursorCodec(Buffer.alloc(32, 2), [Buffer.alloc(32, 1)]);
    expect(rotated.decode("list:t1", cursor)).toEqual({ id: "id-1" });
    expect(() => rotated.decode("list:t2", cursor)).toThrow("The cursor is not valid for this list.");
    expect(() => createCursorCodec(Buffer.alloc(32, 2)).decode("list:t1", cursor)).toThrow(
      "The cursor is not valid for this list.",
    );
  });
});
