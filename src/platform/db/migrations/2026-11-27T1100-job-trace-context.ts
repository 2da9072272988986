import { sql, type Kysely } from "kysely";

// The W3C trace context of the request that enqueued a job ({traceparent, tracestate,
// correlationId}), so that the job's log lines and outbound calls continue that trace. NULL for
// jobs enqueued outside a request (recurring jobs) and for jobs from before this column.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN trace_context jsonb`.execute(db);
}
