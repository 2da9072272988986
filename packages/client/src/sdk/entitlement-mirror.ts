/**
 * The reference sync client (issue 22 item 3; rules/interface C rules 1, 2 and 5): a local projection of one
 * app's entitlements for a service binding, kept with the snapshot and the change feed, persisted
 * through a MirrorStorage, and answering with the server's own decision function. Webhooks only
 * wake it (`wake()`); rights come from the feed alone. Imports only protocol/ and the SDK.
 */
import { decideEntitlement, type Entitlement, type EntitlementDecision } from "../protocol/index.js";
import {
  checkSequences,
  createFeedReader,
  pauseUnlessAborted,
  type FeedEvent,
  type ServiceClient,
} from "./entitlements.js";
import { CursorExpiredError, FeedSequenceError } from "./errors.js";
import {
  createMemoryStorage,
  MirrorStateError,
  stateProblem,
  type MirrorState,
  type MirrorStorage,
} from "./mirror-storage.js";

/** What a gap or a repeat in the feed makes the mirror do (it is always reported first). */
export type DefectPolicy = "resnapshot" | "halt";

export type MirrorEvent =
  /** The stored state was loaded: the mirror answers from it at once. */
  | { type: "loaded"; sequence: number; size: number }
  /** A snapshot is complete; the projection is as of `asOfSequence`. */
  | { type: "snapshot"; reason: SnapshotReason; asOfSequence: number; size: number }
  /** A page of changes `fromSequence`…`toSequence` was applied and saved. */
  | { type: "applied"; fromSequence: number; toSequence: number; count: number }
  /** The feed was read to its end. */
  | { type: "caught-up"; sequence: number; latestSequence: number }
  /** The projection was discarded (fail closed); a new snapshot follows after `delayMs`. */
  | { type: "resnapshot"; reason: Exclude<SnapshotReason, "initial">; attempt: number; delayMs: number }
  /** The feed broke its order: `actual` came where `expected` (= last applied + 1) had to. */
  | { type: "defect"; kind: "gap" | "repeat"; expected: number; actual: number; policy: DefectPolicy }
  /** A read or a save failed (network, server, storage); the follow loop tries again with backoff. */
  | { type: "error"; error: Error };

export type SnapshotReason = "initial" | "cursor-expired" | "defect" | "requested";

export interface EntitlementMirrorOptions {
  /** A service client of the binding (createServiceClient). */
  client: ServiceClient;
  /** Where the position and projection are kept (default: in memory, lost at exit). */
  storage?: MirrorStorage | undefined;
  /** The binding's app: stored with the state; a stored state or an entitlement of another app is refused. */
  appId?: string | undefined;
  /** What `isEntitled`/`decide` require by default: the binding's `requiredCapabilities`. */
  requiredCapabilities?: readonly string[] | undefined;
  /** Pause of the follow loop after it reached the end of the feed (default 2 s). */
  pollIntervalMs?: number | undefined;
  /** After a gap or repeat: discard and snapshot again (default) or stop applying until `resnapshot()`. */
  onDefect?: DefectPolicy | undefined;
  /**
   * Full-jitter exponential backoff of re-snapshots and of the follow loop after errors: the n-th
   * consecutive one waits `random() × min(maxMs, initialMs × 2^(n−1))` (defaults 1 s, 60 s).
   */
  backoff?: { initialMs?: number | undefined; maxMs?: number | undefined } | undefined;
  /** Re-snapshots in a row within one `sync()` before it gives up with the last error (default 5). */
  maxResnapshots?: number | undefined;
  /** The jitter's source, in [0, 1) (default Math.random). */
  random?: (() => number) | undefined;
  /** The clock of decisions (default the system clock). */
  now?: (() => Date) | undefined;
  /** Page sizes (default 1000, the server's maximum). */
  snapshotLimit?: number | undefined;
  changesLimit?: number | undefined;
  /** Observes the mirror (also `on()`); a listener that throws is ignored. */
  onEvent?: ((event: MirrorEvent) => void) | undefined;
}

interface Deferred {
  promise: Promise<number>;
  resolve: (value: number) => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: (value: number) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<number>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const stopped = () => new Error("the entitlement mirror was stopped");
/** Read through a call: TypeScript would keep `signal.aborted` narrowed across awaits. */
const aborted = (signal: AbortSignal): boolean => signal.aborted;

/**
 * Spec C's snapshot → feed → re-snapshot loop for a sync service. One read of the feed runs at a
 * time; `sync()` and `wake()` calls made while one runs share the next.
 */
export class EntitlementMirror {
  readonly #client: ServiceClient;
  readonly #storage: MirrorStorage;
  readonly #required: readonly string[];
  readonly #pollIntervalMs: number;
  readonly #policy: DefectPolicy;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxResnapshots: number;
  readonly #random: () => number;
  readonly #now: () => Date;
  readonly #snapshotLimit: number;
  readonly #changesLimit: number;
  readonly #listeners = new Set<(event: MirrorEvent) => void>();

  readonly #state = new Map<string, Entitlement>();
  #appId: string | null;
  #ready = false;
  #sequence: number | undefined;
  #asOfSequence: number | undefined;
  #latestSequence: number | undefined;
  #halted: FeedSequenceError | undefined;
  #snapshotReason: SnapshotReason = "initial";
  #resnapshotRequested = false;
  /** Re-snapshots and loop failures since the last read that reached the end of the feed. */
  #failures = 0;

  #loading: Promise<void> | undefined;
  #current: Promise<void> | undefined;
  #next: Deferred | undefined;
  #abort = new AbortController();
  #loop: Promise<void> | undefined;
  #stopped = false;

  constructor(options: EntitlementMirrorOptions) {
    this.#client = options.client;
    this.#storage = options.storage ?? createMemoryStorage();
    this.#appId = options.appId ?? null;
    this.#required = options.requiredCapabilities ?? [];
    this.#pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.#policy = options.onDefect ?? "resnapshot";
    this.#initialBackoffMs = options.backoff?.initialMs ?? 1000;
    this.#maxBackoffMs = options.backoff?.maxMs ?? 60_000;
    this.#maxResnapshots = options.maxResnapshots ?? 5;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? (() => new Date());
    this.#snapshotLimit = options.snapshotLimit ?? 1000;
    this.#changesLimit = options.changesLimit ?? 1000;
    if (options.onEvent) this.#listeners.add(options.onEvent);
  }

  /** True once a snapshot completed or a stored state was loaded; false again while re-snapshotting. */
  get ready(): boolean {
    return this.#ready;
  }
  /** The last sequence applied (undefined before the first snapshot). */
  get sequence(): number | undefined {
    return this.#sequence;
  }
  /** The `asOfSequence` of the snapshot the projection was built from. */
  get asOfSequence(): number | undefined {
    return this.#asOfSequence;
  }
  /** The newest sequence the server reported at the last read (lag = latestSequence − sequence). */
  get latestSequence(): number | undefined {
    return this.#latestSequence;
  }
  get size(): number {
    return this.#state.size;
  }
  /** Whether the follow loop runs (between `start()` and `stop()`). */
  get running(): boolean {
    return this.#loop !== undefined;
  }
  /** The defect that stopped the mirror under `onDefect: "halt"`, until `resnapshot()`. */
  get halted(): FeedSequenceError | undefined {
    return this.#halted;
  }

  /** The actor's entitlement as last applied (undefined when unknown or not ready). */
  get(actorId: string): Entitlement | undefined {
    return this.#ready ? this.#state.get(actorId) : undefined;
  }

  /**
   * The server's decision (protocol/ decideEntitlement) over the local state at `now`: active, now in
   * [validFrom, validUntil), every required capability held. Not ready → `unknown` (fail closed).
   */
  decide(actorId: string, required: string | readonly string[] = this.#required): EntitlementDecision {
    if (!this.#ready) return { entitled: false, reason: "unknown" };
    return decideEntitlement(
      this.#state.get(actorId),
      typeof required === "string" ? [required] : required,
      this.#now(),
    );
  }

  isEntitled(actorId: string, required?: string | readonly string[]): boolean {
    return this.decide(actorId, required).entitled;
  }

  /** Adds a listener; returns the function that removes it. */
  on(listener: (event: MirrorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Loads the stored state (a MirrorStateError rejects here) and starts the follow loop: read the
   * feed to its end, pause `pollIntervalMs` (after an error: the backoff), again, until `stop()`.
   */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#load();
    // stop() may have been called while loading.
    if (!this.#isStopped()) this.#loop ??= this.#follow(this.#abort.signal);
  }

  /** Ends the loop and waits for a read in progress (its current request) to end; saves nothing after. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await this.#loop;
    this.#loop = undefined;
    while (this.#current) await this.#current;
    this.#abort = new AbortController();
  }

  /**
   * Reads the feed now, to its end (a snapshot first when there is no position); resolves with the
   * sequence reached. A call made during a read waits for the next one, so it sees every change
   * committed before the call.
   */
  sync(): Promise<number> {
    const next = (this.#next ??= deferred());
    if (!this.#current) this.#runNext();
    return next.promise;
  }

  /**
   * A hint that the feed has news (a webhook arrived): reads it now unless stopped or halted. Never
   * rejects (failures are `error` events); resolves with the sequence reached.
   */
  async wake(): Promise<number | undefined> {
    if (this.#stopped || this.#halted) return this.#sequence;
    return this.sync().catch(() => this.#sequence);
  }

  /** Discards the projection and reads a new snapshot; also ends a halt. */
  resnapshot(): Promise<number> {
    this.#resnapshotRequested = true;
    this.#halted = undefined;
    return this.sync();
  }

  #isStopped(): boolean {
    return this.#stopped;
  }

  #emit(event: MirrorEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // An observer must not break the mirror.
      }
    }
  }

  #delay(attempt: number): number {
    const ceiling = Math.min(this.#maxBackoffMs, this.#initialBackoffMs * 2 ** Math.max(0, attempt - 1));
    return Math.floor(this.#random() * ceiling);
  }

  #runNext(): void {
    const batch = this.#next;
    this.#next = undefined;
    if (!batch) return;
    this.#current = this.#run()
      .then(batch.resolve, batch.reject)
      .finally(() => {
        this.#current = undefined;
        this.#runNext();
      });
  }

  async #follow(signal: AbortSignal): Promise<void> {
    while (!aborted(signal)) {
      let pause = this.#pollIntervalMs;
      if (!this.#halted) {
        try {
          await this.sync();
        } catch {
          if (aborted(signal)) return;
          pause = this.#delay(++this.#failures);
        }
      }
      if (!(await pauseUnlessAborted(pause, signal))) return;
    }
  }

  #load(): Promise<void> {
    this.#loading ??= this.#loadState().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  async #loadState(): Promise<void> {
    const state = await this.#storage.load();
    if (state === undefined) return;
    const problem = stateProblem(state);
    if (problem !== undefined) throw new MirrorStateError(`the stored mirror state is unusable (${problem})`);
    if (state.server !== this.#client.baseUrl) {
      throw new MirrorStateError(
        `the stored mirror state belongs to ${state.server}, not ${this.#client.baseUrl}`,
      );
    }
    if (state.appId !== null && this.#appId !== null && state.appId !== this.#appId) {
      throw new MirrorStateError(`the stored mirror state is of app ${state.appId}, not ${this.#appId}`);
    }
    this.#appId ??= state.appId;
    this.#state.clear();
    for (const entitlement of state.entitlements) this.#state.set(entitlement.actorId, entitlement);
    this.#sequence = state.sequence;
    this.#asOfSequence = state.asOfSequence;
    this.#ready = true;
    this.#emit({ type: "loaded", sequence: state.sequence, size: this.#state.size });
  }

  /** One read: load, snapshot when needed, changes to the end; 410 and defects per the policy. */
  async #run(): Promise<number> {
    const signal = this.#abort.signal;
    try {
      if (aborted(signal)) throw stopped();
      await this.#load();
      let resnapshots = 0;
      for (;;) {
        if (this.#halted) throw this.#halted;
        if (this.#resnapshotRequested) {
          this.#resnapshotRequested = false;
          await this.#discard("requested");
        }
        try {
          const reader = createFeedReader({
            client: this.#client,
            afterSequence: this.#sequence,
            snapshotLimit: this.#snapshotLimit,
            changesLimit: this.#changesLimit,
            maxRestarts: 0,
            onEvent: (event) => this.#apply(event, signal),
          });
          const reached = await reader.catchUp();
          this.#failures = 0;
          return reached;
        } catch (error) {
          if (aborted(signal)) throw error;
          const reason = this.#resnapshotReason(error);
          if (reason === undefined || ++resnapshots > this.#maxResnapshots) throw error;
          await this.#discard(reason);
          const attempt = ++this.#failures;
          const delayMs = this.#delay(attempt);
          this.#emit({ type: "resnapshot", reason, attempt, delayMs });
          if (!(await pauseUnlessAborted(delayMs, signal))) throw stopped();
        }
      }
    } catch (error) {
      if (aborted(signal)) throw stopped();
      if (error !== this.#halted) {
        this.#emit({ type: "error", error: error instanceof Error ? error : new Error(String(error)) });
      }
      throw error;
    }
  }

  /** Rule 2 for a 410; the policy for a gap or repeat (reported first); undefined for other errors. */
  #resnapshotReason(error: unknown): "cursor-expired" | "defect" | undefined {
    if (error instanceof CursorExpiredError) return "cursor-expired";
    if (!(error instanceof FeedSequenceError)) return undefined;
    this.#emit({
      type: "defect",
      kind: error.kind,
      expected: error.expected,
      actual: error.actual,
      policy: this.#policy,
    });
    if (this.#policy === "resnapshot") return "defect";
    this.#halted = error;
    throw error;
  }

  /** Forgets the projection here and in storage: decisions fail closed until the next snapshot. */
  async #discard(reason: SnapshotReason): Promise<void> {
    this.#state.clear();
    this.#ready = false;
    this.#sequence = undefined;
    this.#asOfSequence = undefined;
    this.#snapshotReason = reason;
    await this.#storage.clear();
  }

  async #apply(event: FeedEvent, signal: AbortSignal): Promise<void> {
    if (aborted(signal)) throw stopped();
    switch (event.type) {
      case "reset":
        this.#state.clear();
        this.#ready = false;
        return;
      case "snapshot-page":
        for (const item of event.items) {
          this.#checkApp(item);
          this.#state.set(item.actorId, item);
        }
        return;
      case "snapshot-complete":
        this.#sequence = event.asOfSequence;
        this.#asOfSequence = event.asOfSequence;
        this.#ready = true;
        await this.#save();
        this.#emit({
          type: "snapshot",
          reason: this.#snapshotReason,
          asOfSequence: event.asOfSequence,
          size: this.#state.size,
        });
        this.#snapshotReason = "initial";
        return;
      case "changes-page": {
        this.#latestSequence = event.latestSequence;
        const from = this.#sequence ?? 0;
        // The client checks this too; a mirror never applies past a gap, whatever client it is given.
        checkSequences(event.items, from);
        if (event.items.length === 0) return;
        for (const change of event.items) {
          if (change.entitlement) {
            this.#checkApp(change.entitlement);
            this.#state.set(change.actorId, change.entitlement);
          } else this.#state.delete(change.actorId);
        }
        const to = from + event.items.length;
        this.#sequence = to;
        await this.#save();
        this.#emit({ type: "applied", fromSequence: from + 1, toSequence: to, count: event.items.length });
        return;
      }
      case "idle":
        this.#latestSequence = event.latestSequence;
        this.#emit({ type: "caught-up", sequence: event.position, latestSequence: event.latestSequence });
        return;
    }
  }

  #checkApp(entitlement: Entitlement): void {
    this.#appId ??= entitlement.appId;
    if (entitlement.appId !== this.#appId) {
      throw new MirrorStateError(
        `the feed holds an entitlement of app ${entitlement.appId}, not ${this.#appId}: the credential is of another binding`,
      );
    }
  }

  async #save(): Promise<void> {
    const state: MirrorState = {
      version: 1,
      server: this.#client.baseUrl,
      appId: this.#appId,
      asOfSequence: this.#asOfSequence ?? 0,
      sequence: this.#sequence ?? 0,
      savedAt: this.#now().toISOString(),
      entitlements: [...this.#state.values()],
    };
    await this.#storage.save(state);
  }
}
