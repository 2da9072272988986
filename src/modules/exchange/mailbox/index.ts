/** The partner's mailbox: list, claim, payload, acknowledge, lease expiry; the delivery state machine. */
export { budgetSpent, leaseBackoffMs, readyForClaim, type DeliveryPolicy } from "./delivery-state.js";
export { expireLeases, expireLeasesJob } from "./expire-leases.job.js";
export {
  countUploadDeliveries,
  findDelivery,
  insertDeliveries,
  listUploadDeliveries,
} from "./mailbox.repository.js";
export { createOverdueSweepJob, overdueSweepJobName, sweepOverdueDeliveries } from "./overdue-sweep.job.js";
export { mailboxRoutes } from "./mailbox.routes.js";
export { createMailboxService, type MailboxService } from "./mailbox.service.js";
export { createPayloadService, type PayloadService } from "./payload.service.js";
