/** A thread entry for the pool's tests: echoes, counts per session, fails and dies on request. */
import { serveThread } from "../thread-pool.js";

const counts = new Map<number, number>();

await serveThread(
  {
    echo: (_session, args: { bytes: Uint8Array }) => {
      const copy = new Uint8Array(args.bytes);
      return { result: { bytes: copy, threadId: process.pid }, transfer: [copy.buffer] };
    },
    count(session) {
      const n = (counts.get(session) ?? 0) + 1;
      counts.set(session, n);
      return { result: n };
    },
    fail() {
      throw new RangeError("refused on purpose");
    },
    die() {
      process.exit(3);
    },
  },
  (session) => counts.delete(session),
);
