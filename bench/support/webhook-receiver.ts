/**
 * The webhooks bench's receiver, in a process of its own (as autocannon is for the HTTP benches):
 * the tests' local HTTPS receiver (test/support/https-receiver.ts, a certificate of its own)
 * answering 204 at once and keeping, per request, the `sequence` of its JSON body and the wall-clock
 * time (ms, sub-millisecond) at which the body had arrived. Over IPC it sends `{url, caFile}` once
 * it listens, answers "take" with the arrivals since the last take and the last request (headers, body), and exits on "close".
 */
import { startHttpsReceiver, type ReceivedRequest } from "../../test/support/https-receiver.js";

export type Arrival = [sequence: number, atMs: number];
export type Received = Pick<ReceivedRequest, "headers" | "body">;

const receiver = await startHttpsReceiver();
let arrivals: Arrival[] = [];
let last: Received = { headers: {}, body: "" };
receiver.answer = (request) => {
  receiver.received.length = 0;
  last = request;
  const { sequence } = JSON.parse(request.body) as { sequence?: number };
  arrivals.push([sequence ?? -1, performance.timeOrigin + performance.now()]);
  return { status: 204 };
};

process.on("message", (message) => {
  if (message === "take") {
    process.send?.({ arrivals, last: { headers: last.headers, body: last.body } });
    arrivals = [];
  } else if (message === "close") {
    void receiver.close().then(() => process.exit(0));
  }
});
process.send?.({ url: receiver.url, caFile: receiver.caFile });
