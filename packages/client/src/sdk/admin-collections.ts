/**
 * The tenant's administration collections of the exchange, the workflows and identity (rules/contract
 * §2a): partners, connections and their profile revisions, partner API keys, the audit trail, the
 * operator views of uploads and deliveries, entities and access tokens. Every call goes through
 * the session's published `admin.*` entries (rules/interface B: no path is guessed).
 */
import type { Entrypoint } from "../protocol/index.js";
import type { ListItem, RequestBody, ResponseBody } from "./api.js";
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

export type Partner = ResponseBody<"getPartner">;

export type Identification = ProfileInput["partnerIdentification"];

/**
 * What a profile revision fixes; `responses`, `orderValidation` and `duplicateWindowDays` have
 * server defaults.
 */
export type ProfileInput = RequestBody<"createProfileRevision">;

export type ProfileRevision = ResponseBody<"getProfileRevision">;

export type ConnectionStatus = NonNullable<ConnectionChanges["status"]>;

export type Connection = ResponseBody<"getConnection">;

export type ApiKey = ResponseBody<"getApiKey">;

/** The audit trail's verification (rules/contract §7): `problem` names the first record that fails. */
export type AuditVerification = ResponseBody<"verifyAuditTrail">;

/** A key as created: `token` (`<apiKeyId>:<secret>`) is shown only here. */
export type CreatedApiKey = ResponseBody<"createApiKey", 201>;

/** One audit record (rules/contract §7): who acted, from where, on what, and the request's correlation id. */
export type AuditEvent = ResponseBody<"getAuditEvent">;

/**
 * One finding of the processing of an upload: an ISO 9735 syntax error code (0085) at
 * `interchange` or `message` level, or the APERAK's error code at `application` level; where it
 * sits (UNH reference, segment tag, 1-based segment position, element position) and plain text.
 */
export type UploadFinding = SegmentTree["findings"][number];

/** An outbound message an upload produced, as its upload's view lists it (mailbox order). */
export type UploadOutbound = ResponseBody<"getUpload">["outbound"][number];

/** Whose an upload or a delivery is, by name (the ids stay beside them). */
export type OwnerNames = Pick<Upload, "partnerId" | "partnerName" | "connectionName">;

/** An upload as lists show it; one upload's view adds `findings` and `outbound`. */
export type Upload = ListItem<"listUploads"> &
  Partial<Pick<ResponseBody<"getUpload">, "findings" | "outbound">>;

/** A stored interchange as a segment tree (`hanse edi inspect` as JSON). */
export type SegmentTree = ResponseBody<"getUploadSegments">;

/** The operator's reads of a stored interchange (audited on the server). */
export interface InterchangeReads {
  /** The bytes exactly as stored. */
  content(id: string): Promise<Buffer>;
  segments(id: string): Promise<SegmentTree>;
}

export type Delivery = ResponseBody<"getDelivery">;

/** What `admin.connections.update` changes (at least one of them). */
export type ConnectionChanges = RequestBody<"updateConnection">;

export type Entity = ResponseBody<"getEntity">;

export type AccessToken = ResponseBody<"getAccessToken">;

/** A token as created: `token` is shown only here. */
export type CreatedAccessToken = ResponseBody<"createAccessToken", 201>;

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
