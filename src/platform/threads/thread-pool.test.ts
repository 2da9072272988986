import { afterEach, describe, expect, it } from "vitest";
import { createThreadPool, threadEntry, type ThreadPool } from "./thread-pool.js";

const entry = threadEntry(import.meta.url, "testing/echo.thread");
let pool: ThreadPool | undefined;
afterEach(async () => {
  await pool?.close();
});

describe("thread pool (issue 20: EDIFACT work off the event loop)", () => {
  it("moves buffers to a thread and back, and keeps a session's state on its thread", async () => {
    pool = createThreadPool({ entry, size: 2 });
    const session = pool.session();
    const bytes = new Uint8Array([1, 2, 3]);
    const reply = await session.call<{ bytes: Uint8Array }>("echo", { bytes }, [bytes.buffer]);
    expect([...reply.bytes]).toEqual([1, 2, 3]);
    // Transferred, not copied: the caller's buffer is gone.
    expect(bytes.byteLength).toBe(0);
    expect(await session.call("count", null)).toBe(1);
    expect(await session.call("count", null)).toBe(2);
    const other = pool.session();
    expect(await other.call("count", null)).toBe(1);
    session.end();
    other.end();
  });

  it("a handler's error fails its call only; a thread that dies fails its calls and the next session gets a new one; close ends everything", async () => {
    pool = createThreadPool({ entry, size: 1 });
    const session = pool.session();
    await expect(session.call("fail", null)).rejects.toThrow("refused on purpose");
    expect(await session.call("count", null)).toBe(1);
    await expect(session.call("die", null)).rejects.toThrow("worker thread exited");
    await expect(session.call("count", null)).rejects.toThrow("session is over");
    session.end();
    const next = pool.session();
    expect(await next.call("count", null)).toBe(1);
    next.end();
    await pool.close();
    expect(() => pool?.session()).toThrow("closed");
  });
});
