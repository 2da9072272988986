import { randomBytes, randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import {
  checkTargetUrl,
  classifyOutboundError,
  isBlockedAddress,
  OutboundTargetError,
  signWebhook,
  webhookHeaders,
  webhookToleranceSeconds,
} from "../protocol/index.js";
import { renderColumns } from "./table.js";

/**
 * `hanse webhooks test-receiver`: sends a receiver what Hanse sends (Standard Webhooks, rules/contract
 * §5) and what an attacker or a retry would, and judges each answer by its status alone. Runs in
 * the CLI process against the integrator's own endpoint; no Hanse server is involved.
 */

/** What a receiver must answer: accept (2xx) or refuse (4xx). */
export type Expectation = "2xx" | "4xx";

export interface ReceiverCaseResult {
  id: string;
  title: string;
  expected: Expectation;
  /** Per request of the case: the status, or the class of the failure (`timeout`, `connect`, `tls`, …). */
  got: string[];
  result: "pass" | "fail" | "not-run";
  /** Why a failure matters and what to change; absent on a pass. */
  hint?: string;
}

export interface ReceiverReport {
  url: string;
  passed: boolean;
  /** The test event (eventId, tenantId, appId, sequence) the valid cases carried, to look up in the receiver's store. */
  event: { eventId: string; webhookId: string; tenantId: string; appId: string; sequence: number };
  notes: string[];
  cases: ReceiverCaseResult[];
}

export interface ReceiverCheckOptions {
  url: URL;
  secret: string;
  /** Extra trusted certificates (PEM), besides the system's roots. */
  ca?: string | undefined;
  /** Per request: connect, answer and body together. */
  timeoutMs: number;
  tenantId: string;
  appId: string;
  /** Unix milliseconds; the real clock by default. */
  now?: () => number;
}

/** What a receiver must never accept is this far from now: clearly beyond the 5-minute tolerance. */
const skewSeconds = 2 * webhookToleranceSeconds;
const maxAnswerBytes = 4096;
/** The first event is dated this far back, so that its redelivery comes later, as a retry would. */
const retryAfterSeconds = 5;

/** Who is being tested: sent in `user-agent`, so a receiver's log tells test traffic from deliveries. */
export const testReceiverUserAgent = "hanse-test-receiver/1";

interface Exchange {
  webhookId: string | null;
  timestamp: number | null;
  /** Signed over `signedBody` (default: the body sent) with `secret`; null sends no signature header. */
  secret: string | null;
  body: string;
  signedBody?: string;
}

interface CaseDefinition {
  id: string;
  title: string;
  expected: Expectation;
  hint: string;
  exchanges: Exchange[];
}

type Answer = { status: number } | { error: string };

function describeAnswer(answer: Answer): string {
  if ("error" in answer) return answer.error;
  if (answer.status >= 300 && answer.status < 400) return `${answer.status} (redirects are not followed)`;
  return String(answer.status);
}

function meets(expected: Expectation, answer: Answer): boolean {
  if ("error" in answer) return false;
  return expected === "2xx"
    ? answer.status >= 200 && answer.status < 300
    : answer.status >= 400 && answer.status < 500;
}

/** What an answer that never came means, by the class of the failure. */
function failureHint(errorClass: string, timeoutMs: number): string {
  switch (errorClass) {
    case "timeout":
      return `No answer within ${timeoutMs} ms: store the delivery and answer at once; process it afterwards.`;
    case "tls":
      return "The TLS handshake failed: serve a certificate the system trusts (or give its CA with --ca-file), and https on this port.";
    case "dns":
      return "The host name does not resolve.";
    case "connect":
      return "Nothing accepted the connection: is the receiver running, on this host and port?";
    default:
      return "The exchange failed before an HTTP answer came.";
  }
}

const refusedWith5xx =
  "It answered 5xx: refuse with 400, 401 or 403. A 5xx says the receiver failed (Hanse would " +
  "retry it), not that it refused the request.";

/** The cases, in the order they are sent. */
function cases(options: ReceiverCheckOptions, nowSeconds: number) {
  const event = {
    eventId: randomUUID(),
    type: "entitlement.changed",
    tenantId: options.tenantId,
    appId: options.appId,
    sequence: 1,
    actorId: "hanse-test-receiver",
    occurredAt: new Date(nowSeconds * 1000).toISOString(),
  };
  // Every other body is another event of the same (fake) app: its own eventId, another sequence.
  const bodyOf = (sequence: number) =>
    JSON.stringify(sequence === event.sequence ? event : { ...event, eventId: randomUUID(), sequence });
  const body = bodyOf(event.sequence);
  const webhookId = randomUUID();
  const original = bodyOf(10);
  const tampered = { signed: original, sent: original.replace('"sequence":10', '"sequence":11') };
  const signed = (overrides: Partial<Exchange> = {}): Exchange => ({
    webhookId: randomUUID(),
    timestamp: nowSeconds,
    secret: options.secret,
    body: bodyOf(10),
    ...overrides,
  });
  const definitions: CaseDefinition[] = [
    {
      id: "signed-event",
      title: "a signed entitlement.changed event",
      expected: "2xx",
      hint:
        "A correctly signed delivery must be acknowledged with a 2xx. Check that the receiver uses " +
        "this subscription's whsec_ secret, verifies over the raw body as received (not re-serialised " +
        "JSON), and that its clock is right.",
      exchanges: [{ webhookId, timestamp: nowSeconds - retryAfterSeconds, secret: options.secret, body }],
    },
    {
      // As Hanse's first retry sends it: the same webhook-id and body, signed anew at a later time.
      id: "duplicate-webhook-id",
      title: "the same event again (same webhook-id: a redelivery)",
      expected: "2xx",
      hint:
        "Delivery is at least once: a redelivery carries the same webhook-id and must be acknowledged " +
        "with a 2xx (and not processed twice). Any other answer makes Hanse send it again for days.",
      exchanges: [{ webhookId, timestamp: nowSeconds, secret: options.secret, body }],
    },
    {
      id: "out-of-order",
      title: "an older sequence after a newer one (sequence 3, then 2)",
      expected: "2xx",
      hint:
        "Deliveries may arrive in any order. A notification only says that the feed has news: " +
        "acknowledge it and read the change feed from your own cursor; never refuse it for its sequence.",
      exchanges: [signed({ body: bodyOf(3) }), signed({ body: bodyOf(2) })],
    },
    {
      id: "wrong-secret",
      title: "signed with another secret",
      expected: "4xx",
      hint: "Verify webhook-signature with your secret before acting on a request.",
      exchanges: [signed({ secret: `whsec_${randomBytes(32).toString("base64")}` })],
    },
    {
      id: "tampered-body",
      title: "a body changed after signing",
      expected: "4xx",
      hint: "The signature covers the raw body: verify over the bytes received, and refuse on a mismatch.",
      exchanges: [signed({ signedBody: tampered.signed, body: tampered.sent })],
    },
    {
      id: "stale-timestamp",
      title: `a webhook-timestamp ${skewSeconds / 60} minutes old`,
      expected: "4xx",
      hint: `Refuse a webhook-timestamp more than ${webhookToleranceSeconds / 60} minutes from your clock: it stops replays.`,
      exchanges: [signed({ timestamp: nowSeconds - skewSeconds })],
    },
    {
      id: "future-timestamp",
      title: `a webhook-timestamp ${skewSeconds / 60} minutes ahead`,
      expected: "4xx",
      hint: `Refuse a webhook-timestamp more than ${webhookToleranceSeconds / 60} minutes from your clock, in either direction.`,
      exchanges: [signed({ timestamp: nowSeconds + skewSeconds })],
    },
    {
      id: "missing-signature",
      title: "no webhook-signature header",
      expected: "4xx",
      hint: "A request without a signature is not from Hanse: refuse it, do not skip the check.",
      exchanges: [signed({ secret: null })],
    },
    {
      id: "missing-headers",
      title: "none of webhook-id, webhook-timestamp, webhook-signature",
      expected: "4xx",
      hint: "A request without the Standard Webhooks headers is not from Hanse: refuse it.",
      exchanges: [signed({ webhookId: null, timestamp: null, secret: null })],
    },
  ];
  return {
    event: { eventId: event.eventId, webhookId, tenantId: event.tenantId, appId: event.appId, sequence: 1 },
    definitions,
  };
}

function headersOf(exchange: Exchange): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": testReceiverUserAgent,
  };
  if (exchange.webhookId !== null) headers[webhookHeaders.id] = exchange.webhookId;
  if (exchange.timestamp !== null) headers[webhookHeaders.timestamp] = String(exchange.timestamp);
  if (exchange.secret !== null && exchange.webhookId !== null && exchange.timestamp !== null) {
    headers[webhookHeaders.signature] = signWebhook(
      exchange.secret,
      exchange.webhookId,
      exchange.timestamp,
      exchange.signedBody ?? exchange.body,
    );
  }
  return headers;
}

/** A receiver URL the check will not send to; the message is safe to print. */
export class ReceiverUrlError extends Error {
  override readonly name = "ReceiverUrlError";
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

async function addressesOf(url: URL): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return [host];
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/**
 * The URL to test: https, as Hanse delivers, with the form Hanse requires (no credentials, no
 * fragment); or, with `insecureHttp`, http to a host that resolves to loopback addresses only
 * (a receiver on this machine, in development).
 */
export async function checkReceiverUrl(raw: string, insecureHttp: boolean): Promise<URL> {
  if (/^http:/i.test(raw) && !insecureHttp) {
    throw new ReceiverUrlError(
      "the URL must be https, as Hanse delivers; for a receiver on this machine served over plain " +
        "http, add --insecure-http",
    );
  }
  let url: URL;
  try {
    // The form rules are the server's; for http they are checked on the https twin of the URL.
    url = checkTargetUrl(insecureHttp ? raw.replace(/^http:/i, "https:") : raw);
  } catch (error) {
    if (error instanceof OutboundTargetError) throw new ReceiverUrlError(`the URL ${error.message}`);
    throw error;
  }
  if (!/^http:/i.test(raw)) return url;
  const addresses = await addressesOf(url).catch(() => []);
  if (addresses.length === 0 || !addresses.every((a) => loopback.check(a, isIP(a) === 6 ? "ipv6" : "ipv4"))) {
    throw new ReceiverUrlError(
      "--insecure-http is for a receiver on this machine: the host must resolve to loopback addresses only",
    );
  }
  return new URL(raw);
}

/** Notes on the target that are not failures: an address Hanse would refuse to deliver to. */
async function targetNotes(url: URL): Promise<string[]> {
  const notes =
    url.protocol === "http:"
      ? ["Sent over plain http (--insecure-http): Hanse delivers over https only, so TLS was not checked."]
      : [];
  const addresses = await addressesOf(url).catch(() => []);
  if (!addresses.some(isBlockedAddress)) return notes;
  return [
    ...notes,
    `${url.hostname} is a private, loopback or reserved address: a Hanse server refuses to deliver there ` +
      "unless HANSE_WEBHOOK_ALLOW_PRIVATE=1 (local testing only). Register a public https URL to go live.",
  ];
}

export async function checkReceiver(options: ReceiverCheckOptions): Promise<ReceiverReport> {
  const now = options.now ?? Date.now;
  const agent = new Agent({
    connect: {
      timeout: options.timeoutMs,
      ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
    },
  });
  const send = async (exchange: Exchange): Promise<Answer> => {
    try {
      const response = await request(options.url, {
        method: "POST",
        dispatcher: agent,
        headers: headersOf(exchange),
        body: exchange.body,
        signal: AbortSignal.timeout(options.timeoutMs),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      // The answer's body is read (a little) and dropped: only the status counts, as in delivery.
      await response.body.dump({ limit: maxAnswerBytes });
      return { status: response.statusCode };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { error: "dns" };
      return { error: classifyOutboundError(error).errorClass };
    }
  };

  const notes = await targetNotes(options.url);
  const { event, definitions } = cases(options, Math.floor(now() / 1000));
  const results: ReceiverCaseResult[] = [];
  let unreachable = false;
  try {
    for (const definition of definitions) {
      const base = { id: definition.id, title: definition.title, expected: definition.expected };
      if (unreachable) {
        results.push({ ...base, got: [], result: "not-run" });
        continue;
      }
      const answers: Answer[] = [];
      for (const exchange of definition.exchanges) answers.push(await send(exchange));
      const pass = answers.every((answer) => meets(definition.expected, answer));
      const failure = answers.find((answer): answer is { error: string } => "error" in answer);
      const serverError = answers.some((a) => "status" in a && a.status >= 500);
      let hint = definition.hint;
      if (failure) hint = failureHint(failure.error, options.timeoutMs);
      else if (definition.expected === "4xx" && serverError) hint = `${hint} ${refusedWith5xx}`;
      results.push({
        ...base,
        got: answers.map(describeAnswer),
        result: pass ? "pass" : "fail",
        ...(pass ? {} : { hint }),
      });
      // Nothing answered the first request: the rest would only time out the same way.
      unreachable = results.length === 1 && answers.every((answer) => "error" in answer);
    }
  } finally {
    await agent.close();
  }
  if (unreachable) notes.push("The receiver did not answer; the other cases were not run.");
  return {
    url: options.url.href,
    passed: results.every((r) => r.result === "pass"),
    event,
    notes,
    cases: results,
  };
}

/** The closing words of every report: what a status code cannot show. */
export const effectsNote =
  "test-receiver judges status codes only. It cannot see what your receiver did: check in its " +
  "store that the event above was processed once (the redelivery not again), and that nothing " +
  "was done for the refused requests.";

export function renderReceiverReport(report: ReceiverReport): string {
  const failed = report.cases.filter((c) => c.result === "fail").length;
  const notRun = report.cases.filter((c) => c.result === "not-run").length;
  const lines = [`Receiver ${report.url}`, ...report.notes.map((note) => `  note: ${note}`), ""];
  lines.push(
    renderColumns([
      ["CASE", "EXPECTED", "GOT", "RESULT"],
      ...report.cases.map((c) => [
        c.title,
        c.expected,
        c.got.join(", ") || "-",
        c.result === "not-run" ? "NOT RUN" : c.result.toUpperCase(),
      ]),
    ]),
  );
  const failures = report.cases.filter((c) => c.hint !== undefined);
  if (failures.length > 0) lines.push("");
  for (const c of failures) lines.push(`FAIL ${c.id}: ${c.hint ?? ""}`);
  lines.push(
    "",
    failed === 0
      ? `All ${report.cases.length} cases passed.`
      : `${failed} of ${report.cases.length} cases failed${notRun > 0 ? `, ${notRun} not run` : ""}.`,
    `Test event: eventId ${report.event.eventId}, webhook-id ${report.event.webhookId}, ` +
      `tenant ${report.event.tenantId}, app ${report.event.appId}, sequence ${report.event.sequence}.`,
    effectsNote,
  );
  return lines.join("\n");
}
