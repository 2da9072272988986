import type { ColumnType } from "kysely";
import type { Finding } from "../../edifact/index.js";
import type { Profile } from "./profile.js";
import { tablesOf } from "../../platform/db/tables.js";

type Bytes = ColumnType<Uint8Array, Buffer, Buffer>;
type NullableBytes = ColumnType<Uint8Array | null, Buffer | null, Buffer | null>;

export interface PartnersTable {
  tenant_id: string;
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const connectionStatuses = ["active", "suspended"] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

export interface ConnectionsTable {
  tenant_id: string;
  id: string;
  partner_id: string;
  /** 1–200 characters; the partner's name unless given (rules/contract §8). */
  name: string;
  api_version: string;
  status: ConnectionStatus;
  active_revision: number;
  /**
   * How long a delivery may wait for its acknowledgement before it is overdue (60–2592000 s;
   * null: never). rules/contract §8.
   */
  collection_deadline_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  outbound_counter: ColumnType<number, number | undefined, number>;
  created_at: Date;
  updated_at: Date;
}

export interface ProfileRevisionsTable {
  tenant_id: string;
  connection_id: string;
  revision: number;
  profile: ColumnType<Profile, string, string>;
  created_by: string | null;
  created_at: Date;
}

export const uploadStatuses = ["received", "processing", "processed", "rejected", "failed"] as const;
export type UploadStatus = (typeof uploadStatuses)[number];

export interface UploadsTable {
  tenant_id: string;
  id: string;
  connection_id: string;
  key_hash: Bytes;
  blob_id: string;
  byte_count: number;
  sha256: Bytes;
  interchange_id: string | null;
  profile_revision: number;
  status: UploadStatus;
  error: string | null;
  /** What processing found (JSON text in, parsed array out); `[]` until it ends. */
  findings: ColumnType<Finding[], string | undefined, string>;
  principal_id: string | null;
  /**
   * SHA-256 of the interchange's UNB sender identification, recipient identification and
   * control reference, set when processing read the UNB (the duplicate check's key).
   */
  interchange_key: ColumnType<Uint8Array | null, Buffer | null | undefined, Buffer | null>;
  /** The processed upload of the same connection this one repeats (a duplicate), else null. */
  duplicate_of: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const deliveryStatuses = ["ready", "claimed", "acknowledged", "failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface DeliveriesTable {
  tenant_id: string;
  id: string;
  connection_id: string;
  upload_id: string;
  position: number;
  message_type: string;
  interchange_id: string;
  inbound_interchange_id: string | null;
  message_reference: string;
  /** UNH 0062 of the inbound message this one answers; null for a CONTRL. */
  answers_message_reference: ColumnType<string | null, string | null | undefined, string | null>;
  blob_id: string;
  payload_size: number;
  payload_sha256: Bytes;
  status: DeliveryStatus;
  attempts: number;
  due_at: Date;
  lease_expires_at: Date | null;
  claim_token_hash: NullableBytes;
  verified_attempt: number | null;
  receipt_id: string | null;
  acknowledged_at: Date | null;
  /** The delivery an operator re-sent as this one (same blob), else null. */
  resent_from: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * When the connection's collection deadline passed without an acknowledgement (set once, by the
   * overdue sweep: `markOverdueDeliveries`), else null.
   */
  overdue_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  updated_at: Date;
}

/** The document numbers (BGM 1004) of an upload's messages, written when it is processed. */
export interface UploadDocumentsTable {
  tenant_id: string;
  document_number: string;
  upload_id: string;
}

export interface ExchangeTables {
  exchange_partners: PartnersTable;
  exchange_connections: ConnectionsTable;
  exchange_profile_revisions: ProfileRevisionsTable;
  exchange_uploads: UploadsTable;
  exchange_deliveries: DeliveriesTable;
  exchange_upload_documents: UploadDocumentsTable;
}

/** A transaction over more tables seen as one over the exchange module's own (`tablesOf`). */
export const exchangeTables = tablesOf<ExchangeTables>();

declare module "../../platform/db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends ExchangeTables {}
}
