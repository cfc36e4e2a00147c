import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import {
  checkUrl,
  checkUrlResolving,
  guardedLookup,
  isRefusedAddress,
  outgoingPolicy,
  parseAllowList,
} from './outgoing.js';
import { sendOutgoing } from './outgoing-http.js';

const none = outgoingPolicy('');
const allowed = (url: string, setting = '') => checkUrl(outgoingPolicy(setting), url).ok;

describe('outgoing request policy', () => {
  it('refuses loopback in every spelling WHATWG URL accepts', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://0x7f000001:5432/',
      'http://2130706433/',
      'http://127.1/',
      'http://0177.0.0.1/',
      'http://127.0.0.1./',
      'http://%31%32%37.0.0.1/',
      'http://127.255.255.254:8080/x',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'https://127.0.0.1:443/',
    ])
      expect(allowed(url), url).toBe(false);
  });

  it('refuses every special-purpose range, and IPv6 forms that carry one', () => {
    for (const address of [
      '0.0.0.0',
      '0.1.2.3',
      '10.0.0.1',
      '10.255.255.255',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '169.254.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.1',
      '203.0.113.1',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1',
      '2002:a00:1::1',
      '100::1',
      '2001::1',
      '2001:2::1',
      '2001:db8::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'febf::1',
      'fec0::1',
      'ff02::1',
    ])
      expect(isRefusedAddress(address), address).toBe(true);
  });

  it('allows public addresses and names, and http(s) only', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '100.128.0.1',
      '172.32.0.1',
      '169.255.0.1',
      '2606:4700::1111',
    ])
      expect(isRefusedAddress(address), address).toBe(false);
    expect(allowed('https://93.184.215.14/hook')).toBe(true);
    expect(allowed('http://[2606:4700::1111]/')).toBe(true);
    expect(checkUrl(none, 'https://hooks.example.com/x')).toMatchObject({
      ok: true,
      name: 'hooks.example.com',
    });
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://1.1.1.1/',
      'not a url',
      'http://',
    ])
      expect(allowed(url), url).toBe(false);
  });

  it('lets OUTGOING_ALLOWED_HOSTS allow a host by name, address or CIDR range', () => {
    expect(allowed('http://127.0.0.1:8080/', '127.0.0.1')).toBe(true);
    expect(allowed('http://127.1/', '127.0.0.1')).toBe(true);
    expect(allowed('http://127.0.0.2/', '127.0.0.1')).toBe(false);
    expect(allowed('http://10.1.2.3/', ' 10.1.0.0/16 , fd00::/8')).toBe(true);
    expect(allowed('http://10.2.0.1/', '10.1.0.0/16')).toBe(false);
    expect(allowed('http://[fd00::5]/', '10.1.0.0/16,fd00::/8')).toBe(true);
    expect(allowed('http://[::1]/', '[::1]')).toBe(true);
    expect(checkUrl(outgoingPolicy('Hooks.Internal'), 'http://hooks.internal./x')).toEqual({
      ok: true,
      url: expect.any(URL),
    });
    // An allowed name allows that name, not the address it points at.
    expect(allowed('http://127.0.0.1/', 'localhost')).toBe(false);
    for (const bad of ['10.0.0.0/33', '10.0.0.0/8/1', 'a b', 'http://x', '::1/129', '10.0.0.0/x'])
      expect(() => parseAllowList(bad), bad).toThrow();
    expect(() => loadConfig({ OUTGOING_ALLOWED_HOSTS: '10.0.0.0/40' })).toThrow(/OUTGOING_ALLOWED_HOSTS/);
    expect(loadConfig({ OUTGOING_ALLOWED_HOSTS: 'hooks.internal,10.0.0.0/8' }).OUTGOING_ALLOWED_HOSTS).toBe(
      'hooks.internal,10.0.0.0/8',
    );
  });

  it('resolves names when a URL is saved: localhost is refused, an unknown name is left to delivery', async () => {
    const localhost = await checkUrlResolving(none, 'http://localhost:4242/');
    expect(localhost).toMatchObject({ ok: false, reason: expect.stringContaining('OUTGOING_ALLOWED_HOSTS') });
    expect((await checkUrlResolving(none, 'http://LocalHost:4242/')).ok).toBe(false);
    expect((await checkUrlResolving(outgoingPolicy('127.0.0.0/8,::1'), 'http://localhost/')).ok).toBe(true);
    expect((await checkUrlResolving(none, 'http://no-such-host.invalid/')).ok).toBe(true);
  });
});

describe('sending an outgoing request', () => {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.url ?? '');
    if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
    else res.writeHead(204);
    res.end();
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const post = (setting: string, url: string) =>
    sendOutgoing(outgoingPolicy(setting), url, { method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });

  it('refuses a name that resolves to loopback as it connects, sending nothing', async () => {
    const before = received.length;
    expect(await post('', `http://localhost:${port}/a`)).toEqual({ refused: true });
    expect(await post('', `http://127.0.0.1:${port}/a`)).toEqual({ refused: true });
    expect(await post('', `http://0x7f000001:${port}/a`)).toEqual({ refused: true });
    expect(received.length).toBe(before);
  });

  it('hands the socket only the addresses the policy allows', async () => {
    const resolve = (setting: string) =>
      new Promise((done) =>
        guardedLookup(outgoingPolicy(setting))('localhost', { all: true }, (error, addresses) =>
          done(error ? error.code : addresses),
        ),
      );
    expect(await resolve('')).toBe('ERR_OUTGOING_REFUSED');
    expect(await resolve('127.0.0.0/8')).toEqual(
      expect.arrayContaining([{ address: '127.0.0.1', family: 4 }]),
    );
    expect(await resolve('127.0.0.0/8')).not.toContainEqual(expect.objectContaining({ address: '::1' }));
  });

  it('sends where the setting allows, by name or by range, and follows no redirect', async () => {
    expect(await post('localhost', `http://localhost:${port}/by-name`)).toEqual({ status: 204 });
    expect(await post('127.0.0.0/8', `http://localhost:${port}/by-range`)).toEqual({ status: 204 });
    expect(await post('127.0.0.1', `http://127.1:${port}/by-address`)).toEqual({ status: 204 });
    expect(await post('127.0.0.1', `http://127.0.0.1:${port}/redirect`)).toEqual({ status: 302 });
    expect(received.slice(-4)).toEqual(['/by-name', '/by-range', '/by-address', '/redirect']);
  });
});
