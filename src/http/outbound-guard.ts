/**
 * Where Parley may send a request a client asked for (an A2A push webhook): http(s) only, and by
 * default never to loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, multicast or reserved addresses. The host is resolved and every address it resolves to is
 * checked; a send checks again at send time, so a name that resolved to a public address when the
 * config was set and to a private one later (DNS rebinding) is still refused. PARLEY_A2A_PUSH_ALLOW_PRIVATE
 * lifts the address check (a webhook on the same machine or network).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is. */
function isBlocked(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  return blocked.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** A lookup that hangs (a resolver that never answers) must not hold a client's request or a send. */
const LOOKUP_TIMEOUT_MS = 5000;

async function resolveAll(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`looking up ${host} timed out`)), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return (await Promise.race([lookup(host, { all: true, verbatim: true }), timedOut])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

export interface OutboundOptions {
  allowPrivate: boolean;
}

/** Why `url` may not be sent to (a sentence for the client), or undefined when it may. */
export async function outboundProblem(url: string, options: OutboundOptions): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `only http and https URLs are allowed`;
  if (parsed.username || parsed.password)
    return 'credentials in the URL are not allowed; use the config authentication';
  if (options.allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return `the host ${host} does not resolve`;
  }
  const refused = addresses.find(isBlocked);
  return refused
    ? `${host} resolves to ${refused}, a loopback, private, link-local or reserved address (set PARLEY_A2A_PUSH_ALLOW_PRIVATE=true to allow it)`
    : undefined;
}
