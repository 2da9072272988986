import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Where a webhook or lifecycle adapter may live: HTTPS, no userinfo, and — unless private targets are
 * allowed for local testing — never an address of this host or its networks (loopback, private,
 * link-local, CGNAT, multicast, ULA, unspecified, reserved and their IPv4-mapped forms).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  // Local-use NAT64, discard-only, Teredo and 6to4 (both carry an IPv4 address of their own
  // choosing), documentation.
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 32],
  ["2002::", 16],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address, if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::(?:ffff:(?:0:)?)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::(?:ffff:(?:0:)?)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return blocked.check(inner, "ipv4");
    return blocked.check(address, "ipv6");
  }
  return true;
}

export class OutboundTargetError extends Error {
  override readonly name = "OutboundTargetError";
}

/** Checks the URL's form; throws OutboundTargetError with a safe message. */
export function checkTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundTargetError("not a valid URL");
  }
  if (url.protocol !== "https:") throw new OutboundTargetError("must be an https URL");
  if (url.username !== "" || url.password !== "") throw new OutboundTargetError("must not carry credentials");
  if (url.hash !== "") throw new OutboundTargetError("must not have a fragment");
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
