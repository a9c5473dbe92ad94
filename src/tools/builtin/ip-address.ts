/**
 * Which IP addresses `web_fetch` may connect to. The ranges come from `ipaddr.js` (its special-purpose
 * registries for IPv4 and IPv6); this file only decides which of its ranges count as public.
 */
import ipaddr from 'ipaddr.js';

/** What an address is, for the fetch's address policy and for the reasons it gives. */
export interface AddressClass {
  /** The address in its canonical form (`127.0.0.1` for `0x7f.1`, `::ffff:7f00:1` for `::ffff:127.0.0.1`). */
  address: string;
  /** The name of its range: `unicast` for public addresses, else `loopback`, `private`, `linkLocal`, ... */
  range: string;
  /** True only for globally routable unicast addresses. */
  isPublic: boolean;
  /** The range in words, for refusal reasons: `loopback`, `private (RFC 1918)`, ... */
  description: string;
}

/**
 * Ranges ipaddr.js leaves as `unicast` that are not: IPv4-compatible addresses (::/96, deprecated, they
 * embed an IPv4 address), and anything outside 2000::/3, the only block IANA gives out as global unicast.
 */
const EXTRA_IPV6_RANGES: Record<string, [ipaddr.IPv6, number]> = {
  ipv4Compatible: [ipaddr.IPv6.parse('::'), 96],
  globalUnicast: [ipaddr.IPv6.parse('2000::'), 3],
};

const DESCRIPTIONS: Record<string, string> = {
  unicast: 'public',
  unspecified: 'unspecified (0.0.0.0/8 or ::, which reaches this host)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254.0.0/16 or fe80::/10, where cloud metadata services live)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private (RFC 1918)',
  reserved: 'reserved',
  as112: 'reserved (AS112)',
  as112v6: 'reserved (AS112)',
  amt: 'reserved (AMT)',
  benchmarking: 'reserved (benchmarking)',
  uniqueLocal: 'unique local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  discard: 'discard-only (100::/64)',
  ipv4Mapped: 'IPv4-mapped IPv6 (::ffff:0:0/96)',
  ipv4Compatible: 'IPv4-compatible IPv6 (::/96)',
  rfc6145: 'IPv4-translated IPv6 (::ffff:0:0:0/96)',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
  unassigned: 'not global unicast (outside 2000::/3)',
};

/**
 * Parses an IP literal as it may appear in a URL host: dotted IPv4 and its legacy forms (decimal
 * `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`), and IPv6 with or without brackets.
 * Returns undefined for anything else (a host name).
 */
export function parseIpLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  if (ipaddr.IPv4.isValid(bare)) return ipaddr.IPv4.parse(bare);
  return undefined;
}

/** Classifies an IP literal (any form {@link parseIpLiteral} takes); undefined when `host` is not one. */
export function classifyAddress(host: string): AddressClass | undefined {
  const ip = parseIpLiteral(host);
  if (!ip) return undefined;
  let range: string = ip.range();
  // The IPv6 forms that embed an IPv4 address get no exception for a public IPv4 inside: a relay or
  // translator decides where they lead, which this host cannot check.
  if (ip instanceof ipaddr.IPv6 && range === 'unicast') {
    const extra = ipaddr.subnetMatch(ip, EXTRA_IPV6_RANGES, 'unassigned');
    if (extra !== 'globalUnicast') range = extra;
  }
  const isPublic = range === 'unicast';
  return { address: ip.toString(), range, isPublic, description: DESCRIPTIONS[range] ?? `not public (${range})` };
}

/** The strict address policy of `web_fetch`: true only for public (globally routable unicast) IP addresses. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address)?.isPublic ?? false;
}
