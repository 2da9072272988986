/** The worker's side of the exchange: the job that turns an upload into outbound messages. */
export { processUpload, processUploadJob, type ProcessUploadPayload } from "./process-upload.job.js";
export { createProcessingRunner, type ProcessingRunner } from "./processing-runner.js";
export {
  batchDuplicateLookup,
  duplicateLookup,
  findUpload,
  interchangeKeyHash,
} from "./processing.repository.js";
export {
  exchangeDirectory,
  outboundIssues,
  outboundObserver,
  type OutboundType,
} from "./processing.rules.js";
export { createProcessingService, type ProcessingService } from "./processing.service.js";
