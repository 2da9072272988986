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

  it("elsewhere, with an interval, a changed status is written at most that often; the final line always", () => {
    const out = capture(false);
    let now = 0;
    const progress = createProgressLine(out.stream, { plainIntervalMs: 10_000, now: () => now });
    for (let done = 1; done <= 30; done++) {
      now = done * 1000;
      progress.update(`mailbox: ${done} acknowledged`);
    }
    progress.done("mailbox: 30 acknowledged");
    expect(out.text()).toBe(
      "mailbox: 1 acknowledged\nmailbox: 11 acknowledged\nmailbox: 21 acknowledged\nmailbox: 30 acknowledged\n",
    );
  });

  it("--quiet drops every status line and keeps log lines", () => {
    const out = capture(true);
    const progress = createProgressLine(out.stream, { quiet: true });
    progress.update("mailbox: 0 acknowledged");
    progress.log("mailbox: failed 404");
    progress.done("mailbox: 1 acknowledged");
    expect(out.text()).toBe("mailbox: failed 404\n");
  });
});
