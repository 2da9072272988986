export * from "./define-job.js";
export * from "./queue.js";
export * from "./worker.js";
export type { JobTables, JobsTable } from "./jobs.tables.js";
export * from "./retention.job.js";
export * from "./jobs.metrics.js";
