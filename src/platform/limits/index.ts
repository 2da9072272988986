export { createLeases, deleteExpiredLeases, leaseMs, whileRenewing, type Leases } from "./leases.js";
export {
  createRateLimits,
  deleteIdleRateLimits,
  rateLimitKey,
  type RateLimit,
  type RateLimits,
} from "./rate-limits.js";
export type { LimitTables } from "./limits.tables.js";
