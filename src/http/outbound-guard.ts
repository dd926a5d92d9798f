/**
 * Where Parley may send a request a client asked for (an A2A push webhook): http(s) only, and by
 * default never to loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, multicast or reserved addresses.
 *
 * The decision is made on the address the socket will use (issue 31): the host is resolved once, every
 * address it resolves to is checked — an IPv6 address also by each IPv4 address it carries (IPv4-mapped
 * and -compatible, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) against the same list — and
 * sendChecked() connects to the address it checked (an undici dispatcher whose `lookup` answers it), so
 * no second lookup can answer otherwise (DNS rebinding). PARLEY_A2A_PUSH_ALLOW_PRIVATE lifts the address
 * check (a webhook on the same machine or network).
 */
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type * as UndiciModule from 'undici';
import type { Agent, RequestInit, Response } from 'undici';

type Undici = typeof UndiciModule;

/**
 * undici (~750 KB of code) loads with the first send: a server no client asks to push to never needs it.
 * It is CommonJS: from node_modules Node gives its named exports, but in the esbuild bundle (dist/) a
 * dynamically imported CommonJS chunk has only `default`, so both shapes are read.
 */
async function loadUndici(): Promise<Undici> {
  const loaded = (await import('undici')) as Undici & { default?: Undici };
  return typeof loaded.Agent === 'function' ? loaded : loaded.default!;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // NAT64 local use (RFC 8215): translates to the operator's own networks
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['2001:10::', 28], // ORCHID
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

const v4 = (b: readonly number[], at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const zero = (b: readonly number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

/** The IPv4 addresses an IPv6 address carries, each of which reaches that IPv4 host. */
export function embeddedIPv4(address: string): string[] {
  const b = ipaddr.IPv6.parse(address).toByteArray();
  const found: string[] = [];
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, RFC 2765)
  if (zero(b, 0, 12)) found.push(v4(b, 12));
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) found.push(v4(b, 12));
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) found.push(v4(b, 12));
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12)) found.push(v4(b, 12));
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056)
  if (b[0] === 0x20 && b[1] === 0x02) found.push(v4(b, 2));
  // Teredo 2001:0000::/32 (RFC 4380): the server, and the client's address stored inverted
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    found.push(v4(b, 4));
    found.push(
      v4(
        b.map((x) => x ^ 0xff),
        12,
      ),
    );
  }
  return found;
}

/** The reason `address` may not be connected to, or undefined when it may. */
function blockedBecause(address: string): string | undefined {
  if (isIP(address) === 4) return blocked.check(address, 'ipv4') ? address : undefined;
  if (blocked.check(address, 'ipv6')) return address;
  const carried = embeddedIPv4(address).find((a) => blocked.check(a, 'ipv4'));
  return carried ? `${address} (which reaches ${carried})` : undefined;
}

/** A lookup that hangs (a resolver that never answers) must not hold a client's request or a send. */
const LOOKUP_TIMEOUT_MS = 5000;

type Resolved = { address: string; family: number };

async function resolveAll(host: string): Promise<Resolved[]> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`looking up ${host} timed out`)), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export interface OutboundOptions {
  allowPrivate: boolean;
}

/** A URL checked for sending: refused with a sentence for the client, or the address to connect to. */
export type OutboundCheck = { problem: string } | { problem?: undefined; pinned?: Resolved };

/** Checks `url`; when the address check applies, the result names the one address a send may use. */
export async function checkOutbound(url: string, options: OutboundOptions): Promise<OutboundCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: `"${url}" is not a URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { problem: `only http and https URLs are allowed` };
  if (parsed.username || parsed.password)
    return { problem: 'credentials in the URL are not allowed; use the config authentication' };
  if (options.allowPrivate) return {};
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: Resolved[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveAll(host);
  } catch {
    return { problem: `the host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { problem: `the host ${host} does not resolve` };
  for (const { address } of addresses) {
    const why = blockedBecause(address);
    if (why)
      return {
        problem: `${host} resolves to ${why}, a loopback, private, link-local or reserved address (set PARLEY_A2A_PUSH_ALLOW_PRIVATE=true to allow it)`,
      };
  }
  return { pinned: addresses[0]! };
}

/** Why `url` may not be sent to (a sentence for the client), or undefined when it may. */
export async function outboundProblem(url: string, options: OutboundOptions): Promise<string | undefined> {
  return (await checkOutbound(url, options)).problem;
}

/** A dispatcher whose every connection goes to `pinned`, whatever the URL's host would resolve to now. */
export async function pinnedDispatcher(pinned: Resolved): Promise<Agent> {
  const { Agent } = await loadUndici();
  const answer: LookupFunction = (_host, options, callback) => {
    // net.connect asks for every address when it may try several families (autoSelectFamily).
    if ((options as { all?: boolean }).all)
      (callback as unknown as (err: null, all: Resolved[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  return new Agent({ connect: { lookup: answer } });
}

/**
 * Checks `url`, then sends to the address it checked (redirects are not followed: one could lead past
 * the check). `read` consumes the response before the connection is closed.
 */
export async function sendChecked<T>(
  url: string,
  init: Omit<RequestInit, 'dispatcher' | 'redirect'>,
  options: OutboundOptions,
  read: (res: Response) => Promise<T>,
): Promise<{ refused: string } | { refused?: undefined; value: T }> {
  const checked = await checkOutbound(url, options);
  if (checked.problem !== undefined) return { refused: checked.problem };
  const { fetch: undiciFetch } = await loadUndici();
  const dispatcher = checked.pinned ? await pinnedDispatcher(checked.pinned) : undefined;
  try {
    const res = await undiciFetch(url, { ...init, redirect: 'manual', ...(dispatcher ? { dispatcher } : {}) });
    return { value: await read(res) };
  } finally {
    // One dispatcher per send: its pinned address must not serve another URL's request.
    await dispatcher?.destroy();
  }
}
