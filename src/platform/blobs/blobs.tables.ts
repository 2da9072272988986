import type { ColumnType } from "kysely";

export interface BlobsTable {
  tenant_id: string;
  id: string;
  state: "pending" | "complete";
  content_type: string;
  byte_count: number;
  sha256: ColumnType<Uint8Array | null, Buffer | null, Buffer | null>;
  chunk_count: number;
  created_at: Date;
}

export interface BlobChunksTable {
  tenant_id: string;
  blob_id: string;
  seq: number;
  data: ColumnType<Uint8Array, Buffer, Buffer>;
}

export interface BlobTables {
  blobs: BlobsTable;
  blob_chunks: BlobChunksTable;
}

declare module "../db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends BlobTables {}
}
