// Where Hanse may call (the target rules) is part of the published protocol: the CLI's receiver
// check applies the same rules (packages/client/src/protocol/outbound-target.ts).
export {
  checkTargetUrl,
  classifyOutboundError,
  isBlockedAddress,
  OutboundError,
  OutboundTargetError,
  resolveTargetHost,
  systemLookup,
  type HostLookup,
  type OutboundErrorClass,
} from "@hanse/client/protocol";
export * from "./webhook-signing.js";
export * from "./client.js";
export * from "./guard-report.js";
