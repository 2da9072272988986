export * from "./blob-store.js";
export type { BlobTables, BlobsTable, BlobChunksTable } from "./blobs.tables.js";
export * from "./sweep-pending-blobs.job.js";
