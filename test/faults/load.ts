import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { validOrders, type PartnerSetup } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { bearer } from "../support/test-app.js";

interface Injector {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** What a client saw of one request: its status, or that the connection failed. */
type Outcome = number | "network";

export interface UploadRecord {
  readonly key: string;
  readonly body: string;
  /** The id of the 202 that acknowledged it; null while no answer acknowledged it. */
  uploadId: string | null;
}

export interface TransitionRecord {
  readonly key: string;
  /** The entity the request moves: created (and acknowledged) just before. */
  readonly entityId: string;
  /** The request id of the 202 that acknowledged it; null while no answer acknowledged it. */
  requestId: string | null;
}

export interface EntitlementWrite {
  readonly actorId: string;
  readonly plan: string;
  /** The sequence of the 200 that acknowledged it; null when no answer did. */
  sequence: number | null;
}

/**
 * The writes an operator's clients make while the database fails under them: partner uploads
 * (each with its own idempotency key), entitlement changes (twenty actors, each write another
 * plan; each change is also a webhook delivery), workflow transition requests (a new entity
 * each, submitted with its own idempotency key) and a partner collecting its mailbox (claim,
 * read, acknowledge). Everything acknowledged
 * is recorded, so that the test can check afterwards that nothing acknowledged was lost or done
 * twice; every answer is counted by status.
 */
export class FaultLoad {
  readonly uploads: UploadRecord[] = [];
  readonly entitlementWrites: EntitlementWrite[] = [];
  readonly transitions: TransitionRecord[] = [];
  readonly acknowledgedDeliveries = new Set<string>();
  /** Deliveries acknowledged (200) that a later mailbox list offered again. */
  readonly reoffered: string[] = [];
  readonly outcomes = new Map<string, number>();
  /** Answers that are neither a success, nor 409 (a claim's lease lost), nor 503: what and why. */
  readonly unexpected: string[] = [];
  /** 503 answers without a numeric Retry-After. */
  unavailableWithoutRetryAfter = 0;
  /** The longest time without a successful answer: how long clients could not work. */
  longestWithoutSuccessMs = 0;
  private lastSuccessAt = 0;
  /** The answer to the last upload sent, for a failure's message. */
  lastUploadAnswer = "";
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(
    private readonly http: Injector,
    private readonly partner: PartnerSetup,
    private readonly adminToken: string,
    private readonly appId: string,
    private readonly tenantId: string,
    private readonly prefix: string,
  ) {}

  start(): void {
    this.running = true;
    this.longestWithoutSuccessMs = 0;
    this.lastSuccessAt = Date.now();
    this.loops = [
      this.uploadLoop(),
      this.uploadLoop(),
      this.entitlementLoop(),
      this.transitionLoop(),
      this.mailboxLoop(),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  count(predicate: (outcome: string) => boolean): number {
    let n = 0;
    for (const [outcome, c] of this.outcomes) if (predicate(outcome)) n += c;
    return n;
  }

  get acknowledgedUploads(): number {
    return this.uploads.filter((u) => u.uploadId !== null).length;
  }

  /**
   * Sends a request; records its outcome under its method (or `label`); null when the connection
   * failed.
   */
  async send(
    options: InjectOptions,
    label = options.method ?? "GET",
  ): Promise<LightMyRequestResponse | null> {
    let outcome: Outcome;
    let response: LightMyRequestResponse | null = null;
    try {
      response = await this.http.inject(options);
      outcome = response.statusCode;
      if (outcome >= 400 && outcome !== 409 && outcome !== 503) {
        const url = typeof options.url === "string" ? options.url : "";
        this.unexpected.push(`${options.method ?? "GET"} ${url} ${outcome} ${response.body.slice(0, 300)}`);
      }
      if (outcome === 503 && !/^[0-9]+$/.test(response.headers["retry-after"]?.toString() ?? "")) {
        this.unavailableWithoutRetryAfter++;
      }
    } catch {
      outcome = "network";
    }
    const key = `${label} ${String(outcome)}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
    if (outcome !== "network" && outcome < 300) {
      const now = Date.now();
      this.longestWithoutSuccessMs = Math.max(this.longestWithoutSuccessMs, now - this.lastSuccessAt);
      this.lastSuccessAt = now;
    }
    return response;
  }

  /** Uploads `record` once; true when a 202 (or the 200 of a replay) acknowledged it. */
  async sendUpload(record: UploadRecord): Promise<boolean> {
    const response = await this.send({
      method: "POST",
      url: `/api/v1/b2b-exchange/partner/connections/${this.partner.connectionId}/inbox`,
      headers: {
        authorization: `Bearer ${this.partner.token}`,
        "content-type": "application/edifact",
        "idempotency-key": record.key,
      },
      payload: record.body,
    });
    this.lastUploadAnswer = response ? `${response.statusCode} ${response.body.slice(0, 300)}` : "network";
    if (response?.statusCode !== 202 && response?.statusCode !== 200) return false;
    const { uploadId } = response.json<{ uploadId: string }>();
    if (record.uploadId !== null && record.uploadId !== uploadId) {
      throw new Error(`upload ${record.key} acknowledged twice with different ids`);
    }
    record.uploadId = uploadId;
    return true;
  }

  /** Requests the transition of `record` once; true when a 202 acknowledged it. */
  async sendTransition(record: TransitionRecord): Promise<boolean> {
    const response = await this.send(
      {
        method: "POST",
        url: "/api/v1/workflows/transition-requests",
        headers: {
          ...bearer(this.adminToken),
          "x-tenant-id": this.tenantId,
          "x-idempotency-key": record.key,
        },
        payload: { entity: "product", entityId: record.entityId, transition: "submit" },
      },
      "transition",
    );
    if (response?.statusCode !== 202) return false;
    const { requestId } = response.json<{ requestId: string }>();
    if (record.requestId !== null && record.requestId !== requestId) {
      throw new Error(`transition ${record.key} acknowledged twice with different request ids`);
    }
    record.requestId = requestId;
    return true;
  }

  private async transitionLoop(): Promise<void> {
    for (let n = 0; this.running; n++) {
      const entity = await this.send(
        {
          method: "POST",
          url: "/api/v1/admin/entities",
          headers: bearer(this.adminToken),
          payload: { kind: "product", attributes: { name: `${this.prefix}-${n}` } },
        },
        "entity",
      );
      if (entity?.statusCode !== 201) {
        await this.pauseAfterFailure(false);
        continue;
      }
      const record: TransitionRecord = {
        key: `${this.prefix}-transition-${n}`,
        entityId: entity.json<{ id: string }>().id,
        requestId: null,
      };
      this.transitions.push(record);
      await this.pauseAfterFailure(await this.sendTransition(record));
    }
  }

  private async pauseAfterFailure(ok: boolean): Promise<void> {
    await new Promise((r) => setTimeout(r, ok ? 0 : 50));
  }

  private async uploadLoop(): Promise<void> {
    while (this.running) {
      const n = this.counter++;
      // Interchange control references are at most 14 characters.
      const reference = `${this.prefix}${n}`.slice(-14);
      const record: UploadRecord = {
        key: `${this.prefix}-upload-${n}`,
        body: validOrders(reference),
        uploadId: null,
      };
      this.uploads.push(record);
      await this.pauseAfterFailure(await this.sendUpload(record));
    }
  }

  private async entitlementLoop(): Promise<void> {
    for (let n = 0; this.running; n++) {
      const write: EntitlementWrite = {
        actorId: `${this.prefix}-actor-${n % 20}`,
        plan: `plan-${n}`,
        sequence: null,
      };
      this.entitlementWrites.push(write);
      const response = await this.send({
        method: "PUT",
        url: `/api/v1/admin/apps/${this.appId}/entitlements/${write.actorId}`,
        headers: bearer(this.adminToken),
        payload: { status: "active", plan: write.plan, capabilities: ["read"] },
      });
      if (response?.statusCode === 200) write.sequence = response.json<{ sequence: number }>().sequence;
      await this.pauseAfterFailure(response?.statusCode === 200);
    }
  }

  private async mailboxLoop(): Promise<void> {
    while (this.running) {
      let ok = false;
      try {
        ok = await this.collectOnce();
      } catch {
        ok = false;
      }
      await new Promise((r) => setTimeout(r, ok ? 20 : 50));
    }
  }

  /** Lists the mailbox and collects what it offers; false when a request failed. */
  async collectOnce(): Promise<boolean> {
    const mailbox = `/api/v1/b2b-exchange/partner/connections/${this.partner.connectionId}/mailbox`;
    const auth = bearer(this.partner.token);
    const listed = await this.send({ method: "GET", url: `${mailbox}?limit=20`, headers: auth });
    if (listed?.statusCode !== 200) return false;
    const { items } = listed.json<{ items: { deliveryAttemptId: string }[] }>();
    for (const { deliveryAttemptId: id } of items) {
      if (this.acknowledgedDeliveries.has(id)) {
        this.reoffered.push(id);
        continue;
      }
      const claimed = await this.send({ method: "POST", url: `${mailbox}/${id}/claim`, headers: auth });
      if (claimed?.statusCode !== 200) continue;
      const claimToken = claimed.json<{ claimToken: string }>().claimToken;
      const withClaim = { ...auth, "x-b2b-claim-token": claimToken };
      // A payload streams: a connection lost mid-stream aborts the response (no trailer), so that
      // a cut payload never passes for a whole one.
      const payload = await this.send(
        { method: "GET", url: `${mailbox}/${id}/payload`, headers: withClaim },
        "payload",
      );
      if (payload?.statusCode !== 200) continue;
      const acknowledged = await this.send({
        method: "POST",
        url: `${mailbox}/${id}/acknowledge`,
        headers: withClaim,
      });
      if (acknowledged?.statusCode === 200) this.acknowledgedDeliveries.add(id);
    }
    return true;
  }
}
