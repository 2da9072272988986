import type { Readable } from "node:stream";
import type { Principal } from "../../../platform/auth/index.js";
import { createJobNotifier } from "../../../platform/jobs/index.js";
import type { Leases } from "../../../platform/limits/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { requirePartnerConnection } from "../partner-access.js";
import { processUpload } from "../processing/index.js";
import { createCheckedUpload } from "./checked-upload.js";
import { createEarlyShed } from "./early-shed.js";
import { createInboxBacklog, type BacklogLimits } from "./inbox-backlog.js";
import { createStreamedUpload } from "./streamed-upload.js";
import { createUploadAcceptance, keyHash, type UploadOutcome } from "./upload-acceptance.js";
import { checkHeaders, type UploadHeaders } from "./upload-checks.js";
import { createUploadSlots } from "./upload-slots.js";

export type { UploadOutcome } from "./upload-acceptance.js";

/** What the inbox needs besides the module's common dependencies. */
export interface InboxSettings {
  /** Uploads one API key may stream at once, all processes together (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS). */
  maxConcurrentUploads: number;
  /** The leases that bound streams and uploads per key across processes. */
  leases: Leases;
  /** Unprocessed uploads over which the inbox answers 503 (HANSE_INBOX_MAX_BACKLOG*). */
  backlogLimits: BacklogLimits;
}

/**
 * The partner's upload: admission, streaming into storage, and the one accept statement. The
 * streamed upload (streamed-upload.ts) and the small upload whose key its statement checks
 * (checked-upload.ts) share the accept statement's rows and answers (upload-acceptance.ts).
 */
export function createInboxService(deps: ExchangeDeps & InboxSettings) {
  const { database, clock } = deps;
  const { db } = database;
  /** Unprocessed uploads per tenant and in all: over a bound, uploads are refused (503). */
  const backlog = createInboxBacklog({
    db,
    clock,
    jobName: processUpload.name,
    limits: deps.backlogLimits,
  });
  /** NOTIFY after the commit, coalesced: one in flight at a time however many uploads land. */
  const wakeWorkers = createJobNotifier(database);
  /** Keys refused on a connection over a bound: their next uploads are refused from the head. */
  const shed = createEarlyShed(clock);
  const acceptance = createUploadAcceptance(deps, { backlog, wakeWorkers });

  /** One upload per key at a time, and a bounded number of streams per API key, in all processes. */
  const slots = createUploadSlots(deps.maxConcurrentUploads, deps.leases);

  const uploadOnce = createStreamedUpload(deps, acceptance);
  const uploadChecked = createCheckedUpload(deps, acceptance, slots);

  return {
    /** Whether this process streams as many uploads of this API key as it may (the next one is 429). */
    atStreamLimit: (credentialId: string): boolean => slots.atStreamLimit(credentialId),

    /**
     * Whether a small upload may have its key checked by its accept statement as far as the
     * backlog goes: no bound is reached anywhere (otherwise its tenant must be known first).
     */
    backlogClear: (): Promise<boolean> => backlog.clear(),

    /**
     * Checks that need no body: connection, content type, key, declared length; then the backlog
     * of the connection's tenant and of the service (503 with Retry-After over a bound). A refused
     * `token` is remembered for `shedEarly`.
     */
    async precheck(principal: Principal, connectionId: string, headers: UploadHeaders, token?: string) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const key = checkHeaders(headers, deps.maxPayloadBytes);
      const refusal = await backlog.refusal(connection.tenant_id);
      if (refusal) {
        if (token !== undefined) shed.remember(connection.id, token, connection.tenant_id);
        throw refusal;
      }
      return { connection, key };
    },

    /**
     * From the request's head, before the body is read and without a statement: the 503 for a
     * key that `precheck` refused on this connection within the last seconds, while its tenant
     * or the service is still at its bound and the headers are still valid (their 400 comes
     * first). Undefined: the request takes the ordinary path.
     */
    async shedEarly(connectionId: string, token: string | undefined, headers: UploadHeaders) {
      if (token === undefined) return undefined;
      const tenantId = shed.tenantOf(connectionId, token);
      if (tenantId === undefined) return undefined;
      try {
        checkHeaders(headers, deps.maxPayloadBytes);
      } catch {
        return undefined;
      }
      return backlog.refusal(tenantId);
    },

    /**
     * A small upload (its declared length at most `deferredUploadBytes`) whose partner key is
     * checked by the accept statement itself: the body is read, scanned and stored with the
     * upload, its audit event and its job in one round trip. Whatever is refused before that
     * statement — a bad header, a body that is not one interchange — first checks the key and the
     * connection the ordinary way, so 401 and 404 keep their precedence over the request's own
     * faults. The route has taken the request from the key's rate limit before.
     */
    uploadChecked,

    /**
     * Streams the body into blob storage while hashing and scanning it, then records the upload,
     * its audit event and its processing job in one statement. A body that fits one chunk is read
     * first and stored by that same statement (one round trip for the whole upload). A body over
     * the limit, an interrupted body or one that is not exactly one interchange leaves nothing
     * stored and the key free.
     */
    async upload(
      principal: Principal,
      connection: { id: string; tenant_id: string; active_revision: number },
      key: string,
      body: Readable | AsyncIterable<Uint8Array>,
    ): Promise<UploadOutcome> {
      const hash = keyHash(connection.id, key);
      return slots.stream(principal.credentialId, `${connection.id}:${hash.toString("hex")}`, () =>
        uploadOnce(principal, connection, hash, body),
      );
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
