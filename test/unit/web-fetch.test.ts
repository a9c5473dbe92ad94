import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress, parseIpLiteral } from '../../src/tools/builtin/ip-address.js';

/** [what the host says, the canonical address, the range]; `unicast` is the only range allowed. */
const TABLE: Array<[string, string, string]> = [
  // public
  ['8.8.8.8', '8.8.8.8', 'unicast'],
  ['93.184.216.34', '93.184.216.34', 'unicast'],
  ['100.63.255.255', '100.63.255.255', 'unicast'], // just below CGNAT
  ['100.128.0.0', '100.128.0.0', 'unicast'], // just above CGNAT
  ['172.15.255.255', '172.15.255.255', 'unicast'], // around 172.16/12
  ['172.32.0.0', '172.32.0.0', 'unicast'],
  ['169.253.255.255', '169.253.255.255', 'unicast'],
  ['2606:4700:4700::1111', '2606:4700:4700::1111', 'unicast'],
  ['[2001:4860:4860::8888]', '2001:4860:4860::8888', 'unicast'],
  // loopback, also in the legacy IPv4 forms and bracketed
  ['127.0.0.1', '127.0.0.1', 'loopback'],
  ['127.255.255.254', '127.255.255.254', 'loopback'],
  ['2130706433', '127.0.0.1', 'loopback'], // decimal
  ['0177.0.0.1', '127.0.0.1', 'loopback'], // octal
  ['017700000001', '127.0.0.1', 'loopback'], // octal, one number
  ['0x7f.1', '127.0.0.1', 'loopback'], // hex, short
  ['0x7f000001', '127.0.0.1', 'loopback'], // hex, one number
  ['127.1', '127.0.0.1', 'loopback'], // short
  ['127.0.1', '127.0.0.1', 'loopback'],
  ['::1', '::1', 'loopback'],
  ['[::1]', '::1', 'loopback'],
  // private (RFC 1918)
  ['10.0.0.1', '10.0.0.1', 'private'],
  ['0xa.1', '10.0.0.1', 'private'],
  ['172.16.0.1', '172.16.0.1', 'private'],
  ['172.31.255.255', '172.31.255.255', 'private'],
  ['192.168.1.1', '192.168.1.1', 'private'],
  ['3232235777', '192.168.1.1', 'private'],
  // link-local, cloud metadata included
  ['169.254.169.254', '169.254.169.254', 'linkLocal'],
  ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254', 'linkLocal'],
  ['169.254.0.1', '169.254.0.1', 'linkLocal'],
  ['fe80::1', 'fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'fe80::1%eth0', 'linkLocal'],
  // CGNAT
  ['100.64.0.1', '100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', '100.127.255.254', 'carrierGradeNat'],
  // multicast and broadcast
  ['224.0.0.1', '224.0.0.1', 'multicast'],
  ['239.255.255.250', '239.255.255.250', 'multicast'],
  ['ff02::1', 'ff02::1', 'multicast'],
  ['255.255.255.255', '255.255.255.255', 'broadcast'],
  // reserved and documentation ranges
  ['240.0.0.1', '240.0.0.1', 'reserved'],
  ['192.0.0.1', '192.0.0.1', 'reserved'],
  ['192.0.2.1', '192.0.2.1', 'reserved'],
  ['198.18.0.1', '198.18.0.1', 'reserved'],
  ['198.51.100.1', '198.51.100.1', 'reserved'],
  ['203.0.113.1', '203.0.113.1', 'reserved'],
  ['2001:db8::1', '2001:db8::1', 'reserved'],
  ['fec0::1', 'fec0::1', 'deprecatedSiteLocal'],
  ['100::1', '100::1', 'discard'],
  ['4000::1', '4000::1', 'unassigned'], // outside 2000::/3
  // unspecified
  ['0.0.0.0', '0.0.0.0', 'unspecified'],
  ['0', '0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0.1.2.3', 'unspecified'],
  ['::', '::', 'unspecified'],
  ['[::]', '::', 'unspecified'],
  // unique local
  ['fc00::1', 'fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'fd12:3456::1', 'uniqueLocal'],
  // IPv6 that embeds IPv4: refused whatever IPv4 address is inside
  ['::ffff:127.0.0.1', '::ffff:7f00:1', 'ipv4Mapped'],
  ['[::ffff:7f00:1]', '::ffff:7f00:1', 'ipv4Mapped'],
  ['::ffff:169.254.169.254', '::ffff:a9fe:a9fe', 'ipv4Mapped'],
  ['::ffff:8.8.8.8', '::ffff:808:808', 'ipv4Mapped'],
  ['::7f00:1', '::7f00:1', 'ipv4Compatible'], // how a URL writes [::127.0.0.1]
  ['::808:808', '::808:808', 'ipv4Compatible'],
  // ipaddr.js reads the dotted form of ::/96 as IPv4-mapped (its fix for whitequark/ipaddr.js#101); refused either way.
  ['::127.0.0.1', '::ffff:7f00:1', 'ipv4Mapped'],
  ['::ffff:0:7f00:1', '::ffff:0:7f00:1', 'rfc6145'],
  ['64:ff9b::7f00:1', '64:ff9b::7f00:1', 'rfc6052'], // NAT64
  ['64:ff9b::8.8.8.8', '64:ff9b::808:808', 'rfc6052'],
  ['64:ff9b:1::1', '64:ff9b:1::1', 'rfc6052'], // local-use NAT64
  ['2002:7f00:1::1', '2002:7f00:1::1', '6to4'],
  ['2002:808:808::1', '2002:808:808::1', '6to4'],
  ['2001::1', '2001::1', 'teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
];

describe('address classification for web_fetch', () => {
  it.each(TABLE)('%s is %s, %s', (host, address, range) => {
    const cls = classifyAddress(host);
    expect(cls).toMatchObject({ address, range, isPublic: range === 'unicast' });
    expect(isPublicAddress(host)).toBe(range === 'unicast');
  });

  it('covers every class the issue names, refused, and public addresses, allowed', () => {
    const ranges = new Set(TABLE.map(([, , range]) => range));
    for (const range of [
      'unicast',
      'loopback',
      'private',
      'linkLocal',
      'carrierGradeNat',
      'multicast',
      'reserved',
      'unspecified',
      'uniqueLocal',
      'ipv4Mapped',
      'ipv4Compatible',
      'rfc6052',
      '6to4',
      'teredo',
    ]) {
      expect(ranges).toContain(range);
    }
  });

  it('classifies what the URL parser makes of the literal forms the same way', () => {
    for (const url of [
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
    ]) {
      expect(isPublicAddress(new URL(url).hostname), url).toBe(false);
    }
    expect(classifyAddress(new URL('http://[::127.0.0.1]/').hostname)).toMatchObject({ range: 'ipv4Compatible' });
    expect(classifyAddress(new URL('http://0xa9fea9fe/').hostname)).toMatchObject({ range: 'linkLocal' });
  });

  it('says what a refused address is, in words', () => {
    expect(classifyAddress('169.254.169.254')?.description).toMatch(/link-local.*metadata/);
    expect(classifyAddress('100.64.0.1')?.description).toMatch(/carrier-grade NAT/);
    expect(classifyAddress('::ffff:7f00:1')?.description).toMatch(/IPv4-mapped/);
  });

  it('is not an IP literal: host names and malformed numbers', () => {
    for (const host of ['example.com', 'localhost', '1.2.3.4.5', '08.0.0.1', '256.1.1.1', '[example.com]', '']) {
      expect(parseIpLiteral(host), host).toBeUndefined();
      expect(isPublicAddress(host), host).toBe(false);
    }
  });
});
