import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgressLine } from "./progress.js";

function capture(tty: boolean) {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  Object.assign(stream, { isTTY: tty });
  return { stream, text: () => text };
}

/** A status, a log line and the final status, written as the sync writes them. */
function drive(tty: boolean): string {
  const out = capture(tty);
  const progress = createProgressLine(out.stream);
  progress.update("mailbox: 0 acknowledged");
  progress.log('{"event":"stored"}');
  progress.done("mailbox: 1 acknowledged");
  return out.text();
}

describe("progress line", () => {
  it("on a terminal a log line clears the status line, stands on its own line, and the status is drawn again", () => {
    expect(drive(true)).toBe(
      "\r\x1b[2Kmailbox: 0 acknowledged" +
        '\r\x1b[2K{"event":"stored"}\nmailbox: 0 acknowledged' +
        "\r\x1b[2Kmailbox: 1 acknowledged\n",
    );
  });

  it("elsewhere every line is a plain line", () => {
    expect(drive(false)).toBe('mailbox: 0 acknowledged\n{"event":"stored"}\nmailbox: 1 acknowledged\n');
  });
});
