/**
 * The tenant's administration collections of the exchange, the workflows and identity (CONTRACT
 * §2a): partners, connections and their profile revisions, partner API keys, the audit trail, the
 * operator views of uploads and deliveries, entities and access tokens. Every call goes through
 * the session's published `admin.*` entries (spec B: no path is guessed).
 */
import type { Entrypoint } from "../protocol/index.js";
import type { Transport } from "./http.js";
import { createPublishedCall, type ListQuery, type PublishedCall } from "./published-call.js";
import type { Page, TransitionRequestStatus } from "./types.js";

export const adminCollectionEntries = {
  partners: "admin.partners",
  connections: "admin.connections",
  apiKeys: "admin.apiKeys",
  auditEvents: "admin.auditEvents",
  uploads: "admin.exchangeUploads",
  deliveries: "admin.exchangeDeliveries",
  entities: "admin.entities",
  transitionRequests: "admin.transitionRequests",
  accessTokens: "admin.accessTokens",
} as const;

export interface Partner {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface Identification {
  id: string;
  qualifier?: string;
}

/**
 * What a profile revision fixes; `responses`, `orderValidation` and `duplicateWindowDays` have
 * server defaults.
 */
export interface ProfileInput {
  directory: string;
  syntaxVersion: number;
  syntaxIdentifier: string;
  partnerIdentification: Identification;
  ownIdentification: Identification;
  responses?: { contrl?: string; aperak?: string; ordrsp?: string };
  orderValidation?: string;
  duplicateWindowDays?: number;
}

export interface ProfileRevision extends ProfileInput {
  revision: number;
  responses: { contrl: string; aperak: string; ordrsp: string };
  orderValidation: string;
  duplicateWindowDays: number;
  active: boolean;
  createdAt: string;
}

export type ConnectionStatus = "active" | "suspended";

export interface Connection {
  id: string;
  tenantId: string;
  partnerId: string;
  /** 1–200 characters; the partner's name unless given. */
  name: string;
  apiVersion: string;
  status: string;
  /**
   * Seconds a delivery may wait unacknowledged before it is overdue (60–2592000; null: never;
   * default 86400).
   */
  collectionDeadlineSeconds: number | null;
  activeProfileRevision: ProfileRevision;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKey {
  id: string;
  apiKeyId: string;
  name: string;
  partnerId: string;
  scopes: string[];
  connectionIds: string[] | null;
  createdAt: string;
  revokedAt: string | null;
}

/** The audit trail's verification (CONTRACT §7): `problem` names the first record that fails. */
export interface AuditVerification {
  verified: boolean;
  checkedThrough: string;
  count: number;
  head: { sequence: number; hash: string } | null;
  unsealed: number;
  problem: { kind: "changed" | "removed" | "reordered"; sequence: number; eventId: string | null } | null;
}

/** A key as created: `token` (`<apiKeyId>:<secret>`) is shown only here. */
export type CreatedApiKey = ApiKey & { token: string };

/** One audit record (CONTRACT §7): who acted, from where, on what, and the request's correlation id. */
export interface AuditEvent {
  id: string;
  type: string;
  occurredAt: string;
  principalId: string | null;
  principalKind: "user" | "access_token" | "partner_api_key" | "service_credential" | null;
  targetType: string | null;
  targetId: string | null;
  sourceAddress: string | null;
  correlationId: string | null;
  /** `*.updated` records: the names of the fields changed. */
  changes: string[] | null;
  /** `session.*` records: how the session was opened. */
  method: string | null;
  data: Record<string, string | number | boolean | null>;
  connectionId: string | null;
  uploadId: string | null;
  deliveryAttemptId: string | null;
  byteCount: number | null;
  outcome: string | null;
}

/**
 * One finding of the processing of an upload: an ISO 9735 syntax error code (0085) at
 * `interchange` or `message` level, or the APERAK's error code at `application` level; where it
 * sits (UNH reference, segment tag, 1-based segment position, element position) and plain text.
 */
export interface UploadFinding {
  level: "interchange" | "message" | "application";
  code: string;
  message: string;
  messageReference: string | null;
  segment: string | null;
  position: number | null;
  element: string | null;
}

/** An outbound message an upload produced, as its upload's view lists it (mailbox order). */
export interface UploadOutbound {
  deliveryAttemptId: string;
  messageType: string;
  status: string;
  interchangeId: string;
  messageReference: string;
  /** UNH 0062 of the inbound message it answers; null for a CONTRL (it answers the interchange). */
  answersMessageReference: string | null;
  createdAt: string;
  acknowledgedAt: string | null;
}

/** Whose an upload or a delivery is, by name (the ids stay beside them). */
export interface OwnerNames {
  partnerId: string;
  partnerName: string;
  connectionName: string;
}

export interface Upload extends OwnerNames {
  id: string;
  uploadId: string;
  connectionId: string;
  interchangeId: string | null;
  status: string;
  byteCount: number;
  profileRevision: number;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Outbound messages produced, per message type (`{"CONTRL":1,"ORDRSP":2}`). */
  outboundCounts: Record<string, number>;
  findingCount: number;
  /** Why it was rejected (one upload's view only, not the list). */
  findings?: UploadFinding[];
  /** The outbound messages it produced, in mailbox order (one upload's view only, not the list). */
  outbound?: UploadOutbound[];
}

/** A stored interchange as a segment tree (`hanse edi inspect` as JSON). */
export interface SegmentTree {
  segments: {
    position: number;
    tag: string;
    depth: number;
    group: string | null;
    text: string;
    findings: UploadFinding[];
  }[];
  /** Findings tied to no segment. */
  findings: UploadFinding[];
  notes: string[];
}

/** The operator's reads of a stored interchange (audited on the server). */
export interface InterchangeReads {
  /** The bytes exactly as stored. */
  content(id: string): Promise<Buffer>;
  segments(id: string): Promise<SegmentTree>;
}

export interface Delivery extends OwnerNames {
  id: string;
  deliveryAttemptId: string;
  connectionId: string;
  uploadId: string;
  interchangeId: string;
  inboundInterchangeId: string | null;
  messageReference: string;
  messageType: string;
  payloadSize: number;
  payloadSha256: string;
  status: string;
  attempts: number;
  dueAt: string;
  leaseExpiresAt: string | null;
  receiptId: string | null;
  acknowledgedAt: string | null;
  createdAt: string;
  /** The delivery this one re-sends (`deliveries resend`), else null. */
  resentFrom?: string | null;
  /** Still ready or claimed after the connection's collection deadline. */
  overdue: boolean;
  /** When the collection deadline passed without an acknowledgement; null until then. */
  overdueSince: string | null;
}

/** What `admin.connections.update` changes (at least one of them). */
export interface ConnectionChanges {
  status?: ConnectionStatus;
  name?: string;
  /** 60–2592000 seconds, or null: deliveries of the connection are never overdue. */
  collectionDeadlineSeconds?: number | null;
}

export interface Entity {
  id: string;
  kind: string;
  state: string;
  version: number;
  attributes: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface AccessToken {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdBy: string | null;
}

/** A token as created: `token` is shown only here. */
export type CreatedAccessToken = AccessToken & { token: string };

/** List (with the route's filters), read and create of one published collection. */
export interface Collection<Item, Input = never, Created = Item> {
  list(query?: ListQuery): Promise<Page<Item>>;
  get(id: string): Promise<Item>;
  create(input: Input): Promise<Created>;
}

export interface AdminCollectionsApi {
  partners: Collection<Partner, { name: string }> & {
    rename(id: string, name: string): Promise<Partner>;
  };
  connections: Collection<
    Connection,
    {
      partnerId: string;
      name?: string;
      profile: ProfileInput;
      status?: ConnectionStatus;
      collectionDeadlineSeconds?: number | null;
    }
  > & {
    setStatus(id: string, status: ConnectionStatus): Promise<Connection>;
    rename(id: string, name: string): Promise<Connection>;
    /** Changes any of a connection's status, name and collection deadline. */
    update(id: string, changes: ConnectionChanges): Promise<Connection>;
  };
  /** Profile revisions live under their connection. */
  revisions: {
    list(connectionId: string, query?: ListQuery): Promise<Page<ProfileRevision>>;
    get(connectionId: string, revision: number): Promise<ProfileRevision>;
    create(connectionId: string, profile: ProfileInput): Promise<ProfileRevision>;
    activate(connectionId: string, revision: number): Promise<ProfileRevision>;
  };
  apiKeys: Collection<
    ApiKey,
    { partnerId: string; scopes: string[]; connectionIds?: string[]; name?: string },
    CreatedApiKey
  > & { revoke(id: string): Promise<ApiKey> };
  auditEvents: Omit<Collection<AuditEvent>, "create"> & {
    /** The hash chain checked from the first record to the last seal. */
    verify(): Promise<AuditVerification>;
    /** The NDJSON export of `[occurredFrom, occurredBefore)`, in chain order (the whole body). */
    export(range?: { occurredFrom?: string; occurredBefore?: string }): Promise<Buffer>;
  };
  uploads: Omit<Collection<Upload>, "create"> & InterchangeReads;
  deliveries: Omit<Collection<Delivery>, "create"> &
    InterchangeReads & {
      requeue(id: string): Promise<Delivery>;
      /** A new mailbox item with the same payload, for a partner who lost the file. */
      resend(id: string): Promise<Delivery>;
    };
  entities: Collection<Entity, { kind: string; attributes: Record<string, unknown> }>;
  /** Every transition request of the tenant as its status document; filters `entityId`, `status`. */
  transitionRequests: Pick<Collection<TransitionRequestStatus>, "list">;
  accessTokens: Collection<
    AccessToken,
    { name: string; scopes: string[]; expiresAt?: string },
    CreatedAccessToken
  > & { revoke(id: string): Promise<AccessToken> };
}

const readOnly = <Item>(run: PublishedCall, entry: string): Omit<Collection<Item>, "create"> => ({
  list: (query = {}) => run(entry, "list", {}, { query }),
  get: (id) => run(entry, "read", { id }),
});

const collection = <Item, Input, Created>(
  run: PublishedCall,
  entry: string,
): Collection<Item, Input, Created> => ({
  ...readOnly<Item>(run, entry),
  create: (input) => run(entry, "create", {}, { body: input }),
});

const interchangeReads = (run: PublishedCall, entry: string): InterchangeReads => ({
  content: (id) => run(entry, "content", { id }, { binary: true }),
  segments: (id) => run(entry, "segments", { id }),
});

export function createAdminCollectionsApi(
  transport: Transport,
  findEntry: (id: string) => Promise<Entrypoint>,
): AdminCollectionsApi {
  const run = createPublishedCall(transport, findEntry);
  const e = adminCollectionEntries;
  const revision = (connectionId: string, n: number) => ({ id: connectionId, revision: String(n) });
  return {
    partners: {
      ...collection(run, e.partners),
      rename: (id, name) => run(e.partners, "update", { id }, { body: { name } }),
    },
    connections: {
      ...collection(run, e.connections),
      setStatus: (id, status) => run(e.connections, "update", { id }, { body: { status } }),
      rename: (id, name) => run(e.connections, "update", { id }, { body: { name } }),
      update: (id, changes) => run(e.connections, "update", { id }, { body: changes }),
    },
    revisions: {
      list: (id, query = {}) => run(e.connections, "listProfileRevisions", { id }, { query }),
      get: (id, n) => run(e.connections, "readProfileRevision", revision(id, n)),
      create: (id, profile) => run(e.connections, "createProfileRevision", { id }, { body: profile }),
      activate: (id, n) => run(e.connections, "activateProfileRevision", revision(id, n)),
    },
    apiKeys: {
      ...collection(run, e.apiKeys),
      revoke: (id) => run(e.apiKeys, "revoke", { id }),
    },
    auditEvents: {
      ...readOnly(run, e.auditEvents),
      verify: () => run(e.auditEvents, "verify"),
      export: (range = {}) => run(e.auditEvents, "export", {}, { query: range, binary: true }),
    },
    uploads: { ...readOnly(run, e.uploads), ...interchangeReads(run, e.uploads) },
    deliveries: {
      ...readOnly(run, e.deliveries),
      ...interchangeReads(run, e.deliveries),
      requeue: (id) => run(e.deliveries, "requeue", { id }),
      resend: (id) => run(e.deliveries, "resend", { id }),
    },
    entities: collection(run, e.entities),
    transitionRequests: { list: (query = {}) => run(e.transitionRequests, "list", {}, { query }) },
    accessTokens: {
      ...collection(run, e.accessTokens),
      revoke: (id) => run(e.accessTokens, "revoke", { id }),
    },
  };
}
