import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Where a webhook or lifecycle adapter may live: HTTPS, no userinfo, not port 0, and — unless
 * private targets are allowed for local testing — only a globally reachable unicast address that
 * is not a special-purpose one. Every block of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries is listed below with what it is; the few that are globally reachable (anycast
 * services, AS112, AMT, ORCHIDv2, drone ids) are refused too: none is where a customer runs an
 * HTTPS receiver, and an address there is a mistake or a probe. docs/decisions.md, issue 38.
 */
const ipv4Blocks: readonly (readonly [string, number, string])[] = [
  ["0.0.0.0", 8, "this network (RFC 791); 0.0.0.0/32 this host"],
  ["10.0.0.0", 8, "private use (RFC 1918)"],
  ["100.64.0.0", 10, "shared address space, CGNAT (RFC 6598)"],
  ["127.0.0.0", 8, "loopback (RFC 1122)"],
  ["169.254.0.0", 16, "link local, cloud metadata (RFC 3927)"],
  ["172.16.0.0", 12, "private use (RFC 1918)"],
  // IETF protocol assignments: DS-Lite 192.0.0.0/29, 192.0.0.8 dummy, PCP 192.0.0.9 and TURN
  // 192.0.0.10 anycast (global, but no receiver), NAT64 discovery 192.0.0.170-171.
  ["192.0.0.0", 24, "IETF protocol assignments (RFC 6890)"],
  ["192.0.2.0", 24, "documentation TEST-NET-1 (RFC 5737)"],
  ["192.31.196.0", 24, "AS112-v4 (RFC 7535), global but a DNS sink"],
  ["192.52.193.0", 24, "AMT relays (RFC 7450), global but not HTTP"],
  ["192.88.99.0", 24, "deprecated 6to4 relay anycast (RFC 7526): any relay may answer"],
  ["192.168.0.0", 16, "private use (RFC 1918)"],
  ["192.175.48.0", 24, "direct delegation AS112 (RFC 7534), global but a DNS sink"],
  ["198.18.0.0", 15, "benchmarking (RFC 2544)"],
  ["198.51.100.0", 24, "documentation TEST-NET-2 (RFC 5737)"],
  ["203.0.113.0", 24, "documentation TEST-NET-3 (RFC 5737)"],
  ["224.0.0.0", 4, "multicast (RFC 5771), not in the registry but never a unicast receiver"],
  ["240.0.0.0", 4, "reserved (RFC 1112); includes 255.255.255.255 limited broadcast"],
];
/**
 * The IPv6 blocks. Outside 2000::/3 (global unicast) nothing is allowed at all, so a future
 * assignment there is refused already; the IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96) and NAT64 well-known (64:ff9b::/96) forms are judged by the IPv4 address they
 * carry before this list is read.
 */
const ipv6Blocks: readonly (readonly [string, number, string])[] = [
  ["::", 128, "unspecified (RFC 4291)"],
  ["::1", 128, "loopback (RFC 4291)"],
  ["::", 96, "deprecated IPv4-compatible (RFC 4291)"],
  ["64:ff9b:1::", 48, "local-use IPv4/IPv6 translation (RFC 8215): its embedding is the network's own"],
  ["100::", 64, "discard-only (RFC 6666)"],
  ["100:0:0:1::", 64, "dummy prefix (RFC 9780)"],
  // IETF protocol assignments: Teredo 2001::/32 (carries an IPv4 address of its own choosing),
  // PCP/TURN/DNS-SD anycast 2001:1::1-3, benchmarking 2001:2::/48, AMT 2001:3::/32, AS112-v6
  // 2001:4:112::/48, ORCHID 2001:10::/28 and ORCHIDv2 2001:20::/28, drone ids 2001:30::/28. Some
  // are global, none is an HTTPS receiver.
  ["2001::", 23, "IETF protocol assignments (RFC 2928)"],
  ["2001:db8::", 32, "documentation (RFC 3849)"],
  ["2002::", 16, "6to4 (RFC 3056, deprecated by RFC 7526), whatever IPv4 address it embeds"],
  ["2620:4f:8000::", 48, "direct delegation AS112 (RFC 7534), global but a DNS sink"],
  ["3fff::", 20, "documentation (RFC 9637)"],
  ["5f00::", 16, "segment routing SIDs (RFC 9602)"],
  ["fc00::", 7, "unique local (RFC 4193)"],
  ["fe80::", 10, "link-local (RFC 4291)"],
  ["fec0::", 10, "deprecated site-local (RFC 3879)"],
  ["ff00::", 8, "multicast (RFC 4291)"],
];

const blocked = new BlockList();
for (const [network, prefix] of ipv4Blocks) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of ipv6Blocks) blocked.addSubnet(network, prefix, "ipv6");
const globalUnicast = new BlockList();
globalUnicast.addSubnet("2000::", 3, "ipv6");

/** The eight 16-bit groups of an IPv6 address (`isIP` said 6, no zone). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 address stands for (mapped, translated, NAT64 well-known prefix). */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const carries =
    (zeros(0, 5) && g[5] === 0xffff) || // ::ffff:a.b.c.d, IPv4-mapped
    (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) || // ::ffff:0:a.b.c.d, IPv4-translated (RFC 2765)
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)); // 64:ff9b::a.b.c.d, NAT64 (RFC 6052)
  if (!carries) return undefined;
  const high = g[6] ?? 0;
  const low = g[7] ?? 0;
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  // A zone (`fe80::1%eth0`) scopes an address to a link: never a customer's receiver.
  if (family === 6 && !address.includes("%")) {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return blocked.check(inner, "ipv4");
    return !globalUnicast.check(address, "ipv6") || blocked.check(address, "ipv6");
  }
  return true;
}

export class OutboundTargetError extends Error {
  override readonly name = "OutboundTargetError";
}

/**
 * Checks the URL's form; throws OutboundTargetError with a safe message. `allowHttp` (local
 * testing of single sign-on only, HANSE_SSO_ALLOW_INSECURE) lets `http` through too.
 */
export function checkTargetUrl(raw: string, allowHttp = false): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundTargetError("not a valid URL");
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw new OutboundTargetError("must be an https URL");
  }
  if (url.username !== "" || url.password !== "") throw new OutboundTargetError("must not carry credentials");
  if (url.hash !== "") throw new OutboundTargetError("must not have a fragment");
  // Port 0 is no port: the connection would go wherever the system picks, or fail.
  if (url.port === "0") throw new OutboundTargetError("must not use port 0");
  return url;
}

/** How a host name resolves to addresses; rejects when it does not resolve. */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

/** The system's resolver (node:dns lookup, every address, in the resolver's order). */
export const systemLookup: HostLookup = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, result) => {
      if (error) reject(error);
      else resolve(result);
    });
  });

/**
 * Resolves the host (through `lookup`, the system's resolver unless a test stubs it) and checks
 * every address; the connection later uses only checked addresses.
 */
export async function resolveTargetHost(
  hostname: string,
  allowPrivate: boolean,
  lookup: HostLookup = systemLookup,
): Promise<LookupAddress[]> {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const addresses = await lookup(host).catch(() => {
    throw new OutboundTargetError("the host name does not resolve");
  });
  if (addresses.length === 0) throw new OutboundTargetError("the host name does not resolve");
  if (!allowPrivate && addresses.some((a) => isBlockedAddress(a.address))) {
    throw new OutboundTargetError("resolves to a private, loopback or otherwise reserved address");
  }
  return addresses;
}

/** Why a call to a customer's URL failed, for attempt logs and metrics (never a message from the peer). */
export type OutboundErrorClass = "address" | "dns" | "timeout" | "connect" | "tls" | "protocol";

export class OutboundError extends Error {
  override readonly name = "OutboundError";
  constructor(
    readonly errorClass: OutboundErrorClass,
    message: string,
  ) {
    super(message);
  }
}

/** The class of a failed call (exported for `hanse webhooks test-receiver`, which reports the same classes). */
export function classifyOutboundError(error: unknown): OutboundError {
  if (error instanceof OutboundError) return error;
  if (error instanceof OutboundTargetError) {
    return new OutboundError(error.message.includes("does not resolve") ? "dns" : "address", error.message);
  }
  const code = (error as { code?: unknown }).code;
  const name = (error as { name?: unknown }).name;
  if (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return new OutboundError("timeout", "timed out");
  }
  if (
    typeof code === "string" &&
    (code.startsWith("ERR_TLS") ||
      code.startsWith("ERR_SSL") ||
      code.includes("CERT") ||
      code === "DEPTH_ZERO_SELF_SIGNED_CERT")
  ) {
    return new OutboundError("tls", "the TLS handshake failed");
  }
  if (
    typeof code === "string" &&
    (code.startsWith("ECONN") ||
      code === "EHOSTUNREACH" ||
      code === "ENETUNREACH" ||
      code === "EPIPE" ||
      code === "UND_ERR_SOCKET")
  ) {
    return new OutboundError("connect", "could not be reached");
  }
  return new OutboundError("protocol", "the request failed");
}
