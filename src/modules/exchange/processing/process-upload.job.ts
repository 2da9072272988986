import { defineJob, type JobDefinition } from "../../../platform/jobs/index.js";

/**
 * Turns an upload into outbound messages. The definition (name, payload, attempt budget) is what
 * the inbox's accept statement enqueues; the executor is the processing service
 * (`processUploadJob`).
 */
export const processUpload = { name: "exchange.process-upload", maxAttempts: 5 } as const;

export interface ProcessUploadPayload {
  tenantId: string;
  uploadId: string;
}

export const processUploadJob = (processing: {
  processUpload(tenantId: string, uploadId: string): Promise<void>;
  failUpload(tenantId: string, uploadId: string, error: unknown): Promise<void>;
}): JobDefinition<ProcessUploadPayload> =>
  defineJob<ProcessUploadPayload>({
    ...processUpload,
    run: ({ tenantId, uploadId }) => processing.processUpload(tenantId, uploadId),
    onDead: ({ tenantId, uploadId }, error) => processing.failUpload(tenantId, uploadId, error),
  });
