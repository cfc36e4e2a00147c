import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { notWebUrl, webUrl } from './web-url.js';

/**
 * Outgoing requests a user configures (webhooks, later actions) cannot be turned against the
 * service's own network: loopback, private, link-local (cloud metadata), carrier-grade NAT,
 * multicast and the other special-purpose ranges are refused unless the operator allows a host
 * name or an address range in OUTGOING_ALLOWED_HOSTS. A URL is checked when it is saved
 * (`checkUrl`, `checkUrlResolving`) and again for every address actually connected to
 * (`guardedLookup`, used by platform/outgoing-http.ts), so DNS rebinding cannot get around it.
 */

/** The setting named in every refusal, so that an operator knows where to allow a target. */
export const ALLOW_SETTING = 'OUTGOING_ALLOWED_HOSTS';

const IPV4_REFUSED: [string, number][] = [
  ['0.0.0.0', 8], // "this network", including the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
];

const IPV6_REFUSED: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo (the IPv4 address inside is obfuscated)
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const refused = new BlockList();
for (const [net, prefix] of IPV4_REFUSED) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of IPV6_REFUSED) refused.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address. */
function groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  const expand = (words: string[]) =>
    words.flatMap((w) => {
      if (!w.includes('.')) return [Number.parseInt(w, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = w.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const left = expand(part(head));
  const right = tail === undefined ? [] : expand(part(tail));
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries, where it reaches that IPv4 host: IPv4-mapped
 * (`::ffff:127.0.0.1`), IPv4-compatible (`::127.0.0.1`), NAT64 (`64:ff9b::7f00:1`) and 6to4
 * (`2002:7f00:1::`).
 */
function embeddedIpv4(address: string): string | undefined {
  const g = groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6] ?? 0, g[7] ?? 0);
  if (zeros(0, 6) && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1)) return v4(g[6] ?? 0, g[7] ?? 0);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6] ?? 0, g[7] ?? 0);
  if (g[0] === 0x2002) return v4(g[1] ?? 0, g[2] ?? 0);
  return undefined;
}

/** Whether an IP address (v4 or v6, without brackets) lies in a refused range. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: nothing to connect to
  const inner = embeddedIpv4(address);
  if (inner !== undefined && refused.check(inner, 'ipv4')) return true;
  return refused.check(address, 'ipv6');
}

/** What the operator allows (OUTGOING_ALLOWED_HOSTS): host names, and addresses or ranges. */
export interface OutgoingPolicy {
  names: ReadonlySet<string>;
  ranges: BlockList;
}

const hostKey = (host: string) => host.toLowerCase().replace(/\.$/, '');
const unbracket = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * Parses OUTGOING_ALLOWED_HOSTS: comma-separated host names (`hooks.internal`), addresses
 * (`127.0.0.1`, `::1`) and CIDR ranges (`10.1.0.0/16`, `fd00::/8`). Throws on an entry that is
 * none of these (config.ts checks the setting at boot).
 */
export function parseAllowList(setting: string): OutgoingPolicy {
  const names = new Set<string>();
  const ranges = new BlockList();
  for (const raw of setting.split(',')) {
    const entry = unbracket(raw.trim());
    if (entry === '') continue;
    const [address = '', prefixText, extra] = entry.split('/');
    const family = isIP(address);
    if (family !== 0) {
      const max = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (extra !== undefined || !/^[0-9]{1,3}$/.test(prefixText ?? String(max)) || prefix > max)
        throw new Error(`"${raw.trim()}" is not an address range such as 10.0.0.0/8`);
      ranges.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)) {
      names.add(hostKey(entry));
    } else {
      throw new Error(`"${raw.trim()}" is neither a host name nor an address or CIDR range`);
    }
  }
  return { names, ranges };
}

const policies = new Map<string, OutgoingPolicy>();
/** The policy of a setting's value, parsed once. */
export function outgoingPolicy(setting: string | undefined): OutgoingPolicy {
  const key = setting ?? '';
  let policy = policies.get(key);
  if (!policy) {
    policy = parseAllowList(key);
    policies.set(key, policy);
  }
  return policy;
}

/** Whether the policy lets a connection go to this address. */
export function addressAllowed(policy: OutgoingPolicy, address: string): boolean {
  if (!isRefusedAddress(address)) return true;
  const family = isIP(address);
  return family !== 0 && policy.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `name`: the host is a name still to resolve (not an address, nor allowed by name). */
export type UrlVerdict = { ok: true; url: URL; name?: string } | { ok: false; reason: string };

const refusal = (host: string): UrlVerdict => ({
  ok: false,
  reason: `${host} is a loopback, private, link-local or otherwise internal address; outgoing requests go only to public addresses unless ${ALLOW_SETTING} allows the target.`,
});

/**
 * The decision that needs no network: the scheme (http or https only), and the host when it is
 * an address in any spelling WHATWG URL accepts (`0x7f000001`, `2130706433` and `127.1` are
 * all 127.0.0.1). A name the policy allows is allowed wherever it resolves; another name is
 * left to resolution (`name`).
 */
export function checkUrl(policy: OutgoingPolicy, text: string): UrlVerdict {
  const url = webUrl(text);
  if (!url) return { ok: false, reason: notWebUrl(text) };
  const host = unbracket(url.hostname);
  if (isIP(host) !== 0) return addressAllowed(policy, host) ? { ok: true, url } : refusal(host);
  if (policy.names.has(hostKey(host))) return { ok: true, url };
  return { ok: true, url, name: host };
}

/**
 * `checkUrl`, then a name is resolved: refused when every address it has is refused (such as
 * `localhost`). A name that does not resolve now (or not within `timeoutMs`) is accepted: the
 * delivery resolves it again and checks what it connects to.
 */
export async function checkUrlResolving(
  policy: OutgoingPolicy,
  text: string,
  timeoutMs = 2000,
): Promise<UrlVerdict> {
  const verdict = checkUrl(policy, text);
  if (!verdict.ok || verdict.name === undefined) return verdict;
  const name = verdict.name;
  const addresses = await new Promise<string[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), timeoutMs);
    dnsLookup(name, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found.map((a) => a.address));
    });
  });
  if (addresses.length > 0 && !addresses.some((a) => addressAllowed(policy, a))) return refusal(name);
  return verdict;
}

/** The error a connection refused by the policy fails with (its code, for callers to tell). */
export const REFUSED_CODE = 'ERR_OUTGOING_REFUSED';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * A `lookup` for node:net/http/https that resolves the name and hands over only the addresses
 * the policy allows, so the socket connects to nothing else; when none is left it fails with
 * REFUSED_CODE. A name the policy allows keeps every address.
 */
export function guardedLookup(policy: OutgoingPolicy) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    dnsLookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 }, (error, found) => {
      if (error) return callback(error, options.all ? [] : '');
      const trusted = policy.names.has(hostKey(hostname));
      const usable = found.filter((a) => trusted || addressAllowed(policy, a.address));
      if (usable.length === 0) {
        const refusedError: NodeJS.ErrnoException = new Error(`${hostname}: refused by policy`);
        refusedError.code = REFUSED_CODE;
        return callback(refusedError, options.all ? [] : '');
      }
      if (options.all) return callback(null, usable);
      const [first] = usable;
      callback(null, first?.address ?? '', first?.family);
    });
  };
}
