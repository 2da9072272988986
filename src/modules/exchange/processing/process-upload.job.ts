import { defineJob, type JobDefinition } from "../../../platform/jobs/index.js";
import type { ProcessingService } from "./processing.service.js";

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

/**
 * At most this many uploads are processed in one transaction when a backlog waits (issue 35 item
 * 2; docs/benchmarks.md "processing" has the measurement that chose it).
 */
export const processUploadBatchMax = 16;

export const processUploadJob = (
  processing: Pick<ProcessingService, "processUpload" | "processUploads" | "failUpload">,
): JobDefinition<ProcessUploadPayload> =>
  defineJob<ProcessUploadPayload>({
    ...processUpload,
    run: ({ tenantId, uploadId }) => processing.processUpload(tenantId, uploadId),
    batch: {
      max: processUploadBatchMax,
      run: (items) =>
        processing.processUploads(
          items.map(({ payload, inTrace }) => ({
            tenantId: payload.tenantId,
            uploadId: payload.uploadId,
            inTrace,
          })),
        ),
    },
    onDead: ({ tenantId, uploadId }, error) => processing.failUpload(tenantId, uploadId, error),
  });
