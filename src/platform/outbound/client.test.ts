import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpsReceiver, type HttpsReceiver } from "../../../test/support/https-receiver.js";
import { createOutboundClient, OutboundError } from "./index.js";

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const port = () => new URL(receiver.url).port;

describe("the outbound client (issue 22 item 1)", () => {
  it("connects to the checked address only: a host that resolves to loopback at call time is refused", async () => {
    let answer = [{ address: "93.184.216.34", family: 4 }];
    // The real guard checks what a stubbed resolver answers at call time (DNS rebinding).
    const client = createOutboundClient({
      allowPrivate: false,
      caFile: receiver.caFile,
      lookup: () => Promise.resolve(answer),
    });
    answer = [{ address: "127.0.0.1", family: 4 }];
    const before = receiver.received.length;
    await expect(client.post(`https://hooks.example:${port()}/x`, "{}", {}, 1000)).rejects.toMatchObject({
      errorClass: "address",
    });
    expect(receiver.received.length).toBe(before);
    await client.close();
  });

  it("refuses http:, userinfo and IP literals of blocked ranges before any connection", async () => {
    const client = createOutboundClient({ allowPrivate: false });
    for (const url of [
      "http://example.com/",
      "https://user:secret@example.com/",
      "https://127.0.0.1/",
      "https://[::ffff:10.0.0.1]/",
      "https://169.254.169.254/latest/meta-data",
    ]) {
      const failure = await client.post(url, "{}", {}, 1000).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, url).toBeInstanceOf(OutboundError);
      expect((failure as Error).message).not.toContain("secret");
    }
  });

  it("does not follow redirects: a 3xx is the answer", async () => {
    const client = createOutboundClient({ allowPrivate: true, caFile: receiver.caFile });
    receiver.answer = (request) =>
      request.url === "/redirect"
        ? { status: 302, headers: { location: "https://10.0.0.1/" } }
        : { status: 204 };
    const before = receiver.received.length;
    const response = await client.post(receiver.url.replace("/hooks", "/redirect"), "{}", {}, 2000);
    expect(response.status).toBe(302);
    expect(receiver.received.length).toBe(before + 1);
    await client.close();
  });

  it("reports Retry-After in milliseconds and classifies a time-out", async () => {
    const client = createOutboundClient({ allowPrivate: true, caFile: receiver.caFile });
    receiver.answer = () => ({ status: 503, headers: { "retry-after": "7" } });
    expect(await client.post(receiver.url, "{}", {}, 2000)).toMatchObject({
      status: 503,
      retryAfterMs: 7000,
    });
    receiver.answer = () => "hang";
    await expect(client.post(receiver.url, "{}", {}, 200)).rejects.toMatchObject({ errorClass: "timeout" });
    await client.close();
  });

  it("call (single sign-on's issuers, issue 32 step 7) has the same guard: http only with allowHttp, addresses checked at call time", async () => {
    const strict = createOutboundClient({ allowPrivate: false });
    await expect(
      strict.call("http://issuer.example/.well-known/openid-configuration", { method: "GET" }, 1000),
    ).rejects.toMatchObject({ errorClass: "address" });
    const rebinding = createOutboundClient({
      allowPrivate: false,
      allowHttp: true,
      lookup: () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]),
    });
    await expect(
      rebinding.call("http://issuer.example/.well-known/openid-configuration", { method: "GET" }, 1000),
    ).rejects.toMatchObject({ errorClass: "address" });
    const open = createOutboundClient({ allowPrivate: true, caFile: receiver.caFile });
    receiver.answer = () => ({ status: 200, headers: { "content-type": "application/json" } });
    expect(await open.call(receiver.url, { method: "GET" }, 2000)).toMatchObject({
      status: 200,
      contentType: "application/json",
    });
    await Promise.all([strict.close(), rebinding.close(), open.close()]);
  });
});
