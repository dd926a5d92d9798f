/**
 * Where a client-given URL may be sent (src/http/outbound-guard.ts): schemes, credentials, addresses —
 * IPv6 forms included by the IPv4 address they carry — and a send goes to the address checked.
 */
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch as undiciFetch } from 'undici';
import { embeddedIPv4, outboundProblem, pinnedDispatcher, sendChecked } from '../../../src/http/outbound-guard.ts';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };

describe('outboundProblem', () => {
  it('takes http and https only, and no credentials in the URL', async () => {
    expect(await outboundProblem('ftp://8.8.8.8/hook', closed)).toMatch(/only http and https/);
    expect(await outboundProblem('file:///etc/passwd', open)).toMatch(/only http and https/);
    expect(await outboundProblem('not a url', closed)).toMatch(/is not a URL/);
    expect(await outboundProblem('https://user:secret@8.8.8.8/hook', closed)).toMatch(/credentials in the URL/);
  });

  it('refuses loopback, private, link-local, CGNAT, multicast and reserved addresses, IPv4 and IPv6, by default', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://10.1.2.3/',
      'http://172.20.0.1/',
      'http://192.168.1.10/',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://[::1]/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://[::ffff:127.0.0.1]/',
      // Issue 31: the forms that passed before, and their relatives.
      'http://[::127.0.0.1]/', // IPv4-compatible
      'http://[64:ff9b::7f00:1]/', // NAT64 of 127.0.0.1
      'http://[64:ff9b::a9fe:a9fe]/', // NAT64 of 169.254.169.254
      'http://[64:ff9b:1::a00:1]/', // NAT64 local use
      'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
      'http://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
      'http://[2001:0:7f00:1::]/', // Teredo, server 127.0.0.1
      'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', // Teredo, client 10.0.0.1 (stored inverted)
      'http://[::ffff:7f00:1]/', // mapped, hex
      'http://[::ffff:0:a00:1]/', // IPv4-translated 10.0.0.1
      'http://[::ffff:a9fe:a9fe]/',
      'http://[2001:db8::1]/',
      'http://[fec0::1]/',
    ])
      expect(await outboundProblem(url, closed), url).toMatch(/PARLEY_A2A_PUSH_ALLOW_PRIVATE/);
  });

  it('says which IPv4 address an IPv6 form reaches', async () => {
    expect(await outboundProblem('http://[64:ff9b::7f00:1]/', closed)).toMatch(/which reaches 127\.0\.0\.1/);
    expect(embeddedIPv4('2002:7f00:1::')).toEqual(['127.0.0.1']);
    expect(embeddedIPv4('2001:0:4136:e378:8000:63bf:f5ff:fffe')).toEqual(['65.54.227.120', '10.0.0.1']);
    expect(embeddedIPv4('2001:4860:4860::8888')).toEqual([]);
  });

  it('lets public addresses through, and private ones when allowed', async () => {
    expect(await outboundProblem('https://8.8.8.8/hook', closed)).toBeUndefined();
    expect(await outboundProblem('https://[64:ff9b::808:808]/hook', closed)).toBeUndefined(); // NAT64 of 8.8.8.8
    expect(await outboundProblem('https://[2002:808:808::1]/hook', closed)).toBeUndefined(); // 6to4 of 8.8.8.8
    expect(await outboundProblem('https://[2001:4860:4860::8888]/hook', closed)).toBeUndefined();
    expect(await outboundProblem('http://127.0.0.1:8080/hook', open)).toBeUndefined();
  });

  it('a host that does not resolve is refused, saying so', async () => {
    expect(await outboundProblem('https://no-such-host.invalid/hook', closed)).toMatch(/does not resolve/);
  });
});

describe('a send goes to the address that was checked', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });
  const listen = async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.headers.host ?? '');
      res.end('ok');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { port: (server.address() as { port: number }).port, hits };
  };

  it('the pinned dispatcher connects to its address and never looks the host up', async () => {
    const { port, hits } = await listen();
    // .invalid never resolves (RFC 6761): reaching the server proves no lookup happened at connect.
    const dispatcher = await pinnedDispatcher({ address: '127.0.0.1', family: 4 });
    try {
      const res = await undiciFetch(`http://hook.invalid:${port}/x`, { dispatcher });
      expect(await res.text()).toBe('ok');
    } finally {
      await dispatcher.destroy();
    }
    expect(hits).toEqual([`hook.invalid:${port}`]);
  });

  it('sendChecked refuses what the check refuses, before any connection', async () => {
    const { port, hits } = await listen();
    const sent = await sendChecked(`http://[::ffff:7f00:1]:${port}/`, { method: 'POST' }, closed, (r) => r.text());
    expect(sent.refused).toMatch(/loopback/);
    expect(hits).toEqual([]);
    const allowed = await sendChecked(`http://127.0.0.1:${port}/`, { method: 'POST' }, open, (r) => r.text());
    expect(allowed).toEqual({ value: 'ok' });
  });
});
