/**
 * Runs one operation of the EDIFACT benchmark in its own thread, one timed round per message
 * from the driver: every operation gets its own heap and JIT state (a peer's garbage or an
 * inline cache made polymorphic by another operation does not land in our rounds), while the
 * driver still interleaves the rounds of all operations in time. Each round also times the bare
 * scan in the same thread, the baseline its ratio is taken against.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadOperations } from "./operations.js";
import { generateOrders } from "./orders.generator.js";

const { label, bytes } = workerData as { label: string; bytes: number };
const port = parentPort;
if (!port) throw new Error("round.worker.ts runs as a worker thread");
const [found, baseline] = await Promise.all([
  loadOperations(generateOrders(10 * 1024), label).then((ops) => ops[0]),
  loadOperations(generateOrders(10 * 1024), "bare scan").then((ops) => ops[0]),
]);
const op = found?.op;
const scan = baseline?.op;
if (!op || !scan) throw new Error(`operation ${label} is not available`);
const input = generateOrders(bytes);
// Warm up (at least 3 runs and 200 ms) so that rounds measure optimised code: at 16 MiB one
// round is a single run, and the first runs of a function are not optimised yet.
for (const f of [op, scan])
  for (let runs = 0, started = performance.now(); runs < 3 || performance.now() - started < 200; runs++)
    f(input);

/**
 * One round: the operation and the bare scan alternate run by run for at least 40 ms, in this
 * same thread, so that both meet the same machine load at millisecond scale (the scan's speed
 * in a worker of its own swung 1.7× between runs, and even the same function timed in two
 * consecutive 20 ms windows of one thread differed by half). Answers milliseconds per run of each.
 */
port.on("message", () => {
  let runs = 0;
  let own = 0;
  let scanned = 0;
  const started = performance.now();
  let now = started;
  do {
    op(input);
    const mid = performance.now();
    scan(input);
    const end = performance.now();
    own += mid - now;
    scanned += end - mid;
    now = end;
    runs++;
  } while (now - started < 40);
  port.postMessage({ own: own / runs, scan: scanned / runs });
});
port.postMessage("ready");
