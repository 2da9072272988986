import { Type, type Static } from "@sinclair/typebox";

const seconds = (defaultValue: number, description: string, maximum?: number) =>
  Type.Integer({ minimum: 1, ...(maximum ? { maximum } : {}), default: defaultValue, description });

/**
 * Every setting Hanse reads from its environment (rules/contract §0 plus our own).
 * `.env.example` documents the same keys; a test keeps the two in step.
 */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: "HTTP port" }),
  HOST: Type.String({ minLength: 1, default: "127.0.0.1", description: "HTTP bind address" }),
  HANSE_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: "Port of the Prometheus metrics listener (GET /metrics); unset: no metrics listener",
    }),
  ),
  HANSE_METRICS_HOST: Type.String({
    minLength: 1,
    default: "127.0.0.1",
    description: "Bind address of the metrics listener",
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: "^postgres(ql)?://",
      description: "PostgreSQL URL; unset means the embedded PGlite database in HANSE_DATA_DIR",
    }),
  ),
  HANSE_DATABASE_POOLER: Type.Union([Type.Literal("none"), Type.Literal("transaction")], {
    default: "none",
    description:
      "transaction: DATABASE_URL names a transaction-mode pooler (PgBouncer, RDS Proxy, Supavisor); no session state is used",
  }),
  HANSE_DATABASE_DIRECT_URL: Type.Optional(
    Type.String({
      pattern: "^postgres(ql)?://",
      description:
        "Behind a transaction pooler: a direct connection to the same database for LISTEN and the maintenance lock; unset: workers poll",
    }),
  ),
  HANSE_DATA_DIR: Type.String({
    minLength: 1,
    default: "./data",
    description: "Embedded database and bootstrap token",
  }),
  HANSE_BOOTSTRAP_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      maxLength: 512,
      pattern: "^[\\x21-\\x7e]+$",
      description: "Access token of the initial system administrator (first start only)",
    }),
  ),
  HANSE_BOOTSTRAP_EMAIL: Type.String({
    minLength: 3,
    default: "admin@system.local",
    description: "E-mail of the initial system administrator (first start only)",
  }),
  HANSE_ROLES: Type.String({
    pattern: "^(api|worker)(,(api|worker))?$",
    default: "api,worker",
    description: "Process roles: api, worker or api,worker",
  }),
  HANSE_PUBLIC_URL: Type.Optional(
    Type.String({ pattern: "^https?://[^\\s]+$", description: "Base of absolute URLs and issuer of grants" }),
  ),
  HANSE_SECRET_KEY: Type.Optional(
    Type.String({
      minLength: 32,
      description: "Key for cursor and reference MACs; unset means a random key kept in the database",
    }),
  ),
  HANSE_SECRET_KEY_PREVIOUS: Type.Optional(
    Type.String({
      // Each key at least 32 characters, as HANSE_SECRET_KEY.
      pattern: "^[^,]{32,}(,[^,]{32,})*$",
      description:
        "Keys HANSE_SECRET_KEY replaced, comma-separated: they still open sealed secrets and cursors until `hanse secret-key reseal` has run",
    }),
  ),
  HANSE_MAILBOX_LEASE_SECONDS: seconds(300, "Mailbox claim lease"),
  HANSE_MAILBOX_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description: "Claims per delivery",
  }),
  HANSE_MAILBOX_RETRY_BASE_SECONDS: seconds(30, "Backoff base after an expired lease"),
  HANSE_PARTNER_RATE_LIMIT_BURST: Type.Integer({
    minimum: 1,
    default: 2000,
    description: "Partner API requests one API key may send at once, all API processes together",
  }),
  HANSE_PARTNER_RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 1000,
    description: "Partner API requests per second that refill a key's burst, all API processes together",
  }),
  HANSE_PARTNER_MAX_CONCURRENT_UPLOADS: Type.Integer({
    minimum: 1,
    default: 64,
    description: "Uploads one partner API key may stream at once, all API processes together",
  }),
  HANSE_INBOX_MAX_BACKLOG: Type.Integer({
    minimum: 1,
    default: 10000,
    description: "Unprocessed uploads of the whole service over which POST /inbox answers 503",
  }),
  HANSE_INBOX_MAX_BACKLOG_PER_TENANT: Type.Integer({
    minimum: 1,
    default: 2000,
    description: "Unprocessed uploads of one tenant over which its POST /inbox answers 503",
  }),
  HANSE_GRANT_TTL_SECONDS: seconds(300, "Lifetime of entitlement grants", 900),
  HANSE_AUDIT_SEAL_SECONDS: seconds(
    15,
    "How often new audit records are sealed into their tenant's hash chain (a record is sealed within this plus one job poll)",
    45,
  ),
  HANSE_AUDIT_RETENTION_DAYS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36500,
      description: "Age in days after which sealed audit records are removed (unset: kept forever)",
    }),
  ),
  HANSE_FEED_RETENTION_SECONDS: seconds(604800, "How long entitlement changes are kept"),
  HANSE_CREDENTIAL_OVERLAP_SECONDS: seconds(3600, "Validity of a rotated-out service secret"),
  HANSE_SIGNING_KEY_ROTATION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: "Age at which a tenant's grant signing key is rotated",
  }),
  HANSE_SESSION_TTL_SECONDS: seconds(43200, "Lifetime of user sessions"),
  HANSE_SESSION_IDLE_SECONDS: Type.Integer({
    // Above the minute to which a session's last use is recorded (docs/decisions.md).
    minimum: 300,
    default: 28800,
    description:
      "A user session unused for longer is refused (idle expiry; its last use is recorded to the minute)",
  }),
  HANSE_INVITATION_TTL_SECONDS: seconds(259200, "How long a user's invitation can be accepted"),
  HANSE_PASSWORD_RESET_TTL_SECONDS: seconds(3600, "How long a password reset can be used"),
  HANSE_SIGN_IN_ACCOUNT_FAILURES: Type.Integer({
    minimum: 1,
    default: 100,
    description:
      "Failed sign-ins of one account, from all addresses together, after which its password checks are spaced one per second, all API processes together",
  }),
  HANSE_TRUST_PROXY: Type.Optional(
    Type.String({
      minLength: 1,
      pattern: "^[0-9A-Fa-f:.,/ ]+$",
      description:
        "Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client; unset: the peer address is the client",
    }),
  ),
  HANSE_SSO_ALLOW_INSECURE: Type.Union([Type.Literal("0"), Type.Literal("1")], {
    default: "0",
    description:
      "Testing only: single sign-on issuers may use http and private or loopback addresses (rules/contract §7)",
  }),
  HANSE_WEBHOOK_ALLOW_PRIVATE: Type.Union([Type.Literal("0"), Type.Literal("1")], {
    default: "0",
    description: "Local testing only: allow private webhook targets",
  }),
  HANSE_WEBHOOK_CA_FILE: Type.Optional(
    Type.String({ minLength: 1, description: "Local testing only: extra CA" }),
  ),
  HANSE_WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60000,
    default: 10000,
    description: "Time a webhook receiver has to answer one delivery",
  }),
  HANSE_WEBHOOK_DISABLE_AFTER_SECONDS: Type.Integer({
    minimum: 60,
    default: 432000,
    description: "A subscription whose deliveries all fail for this long is disabled",
  }),
  HANSE_JOB_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60000,
    default: 1000,
    description: "Job poll interval",
  }),
  HANSE_WORKER_PROCESSES: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 16,
      description:
        "Worker processes `serve` starts beside the API when it has both roles (PostgreSQL only; default 1 with DATABASE_URL, 0 = jobs in the API process)",
    }),
  ),
  HANSE_WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 4,
    description: "Jobs run at once",
  }),
  HANSE_JOB_LEASE_SECONDS: seconds(30, "Job lease, renewed every third of it while the job runs", 3600),
  HANSE_HTTP_IDLE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 60000,
    description:
      "A request whose body sends nothing this long is answered 408 (what it stored is dropped); a response that makes no progress this long is closed",
  }),
  HANSE_SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    default: 10000,
    description: "Graceful drain limit",
  }),
  HANSE_BUILD_COMMIT: Type.Optional(Type.String({ description: "Build commit for discovery" })),
  HANSE_BUILD_TIME: Type.Optional(Type.String({ description: "Build time for discovery" })),
  LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l)),
    { default: "info", description: "pino log level" },
  ),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface Config extends Omit<RawConfig, "HANSE_ROLES" | "HANSE_PUBLIC_URL"> {
  HANSE_ROLES: { api: boolean; worker: boolean };
  HANSE_PUBLIC_URL: string;
}
