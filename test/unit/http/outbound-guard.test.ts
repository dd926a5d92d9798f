/** Where a client-given URL may be sent (src/http/outbound-guard.ts): schemes, credentials, and addresses. */
import { describe, expect, it } from 'vitest';
import { outboundProblem } from '../../../src/http/outbound-guard.ts';

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
    ])
      expect(await outboundProblem(url, closed), url).toMatch(/PARLEY_A2A_PUSH_ALLOW_PRIVATE/);
  });

  it('lets public addresses through, and private ones when allowed', async () => {
    expect(await outboundProblem('https://8.8.8.8/hook', closed)).toBeUndefined();
    expect(await outboundProblem('https://[2001:4860:4860::8888]/hook', closed)).toBeUndefined();
    expect(await outboundProblem('http://127.0.0.1:8080/hook', open)).toBeUndefined();
  });

  it('a host that does not resolve is refused, saying so', async () => {
    expect(await outboundProblem('https://no-such-host.invalid/hook', closed)).toMatch(/does not resolve/);
  });
});
