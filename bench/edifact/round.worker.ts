/**
 * Runs one operation of the EDIFACT benchmark in its own thread, one timed round per message
 * from the driver: every operation gets its own heap and JIT state (a peer's garbage or an
 * inline cache made polymorphic by another operation does not land in our rounds), while the
 * driver still interleaves the rounds of all operations in time.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadOperations } from "./operations.js";
import { generateOrders } from "./orders.generator.js";

const { label, bytes } = workerData as { label: string; bytes: number };
const port = parentPort;
if (!port) throw new Error("round.worker.ts runs as a worker thread");
const [found] = await loadOperations(generateOrders(10 * 1024), label);
const op = found?.op;
if (!op) throw new Error(`operation ${label} is not available`);
const input = generateOrders(bytes);
// Warm up (at least 3 runs and 200 ms) so that rounds measure optimised code: at 16 MiB one
// round is a single run, and the first runs of a function are not optimised yet.
for (let runs = 0, started = performance.now(); runs < 3 || performance.now() - started < 200; runs++)
  op(input);

/** One round: repeats the operation for at least 20 ms and answers milliseconds per run. */
port.on("message", () => {
  let runs = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    op(input);
    runs++;
    elapsed = performance.now() - started;
  } while (elapsed < 20);
  port.postMessage(elapsed / runs);
});
port.postMessage("ready");
