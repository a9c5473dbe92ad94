import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { PageSeal } from '../../src/server/page-seal.js';

const SCOPE = JSON.stringify(['ann', 'acme', 'bank-agent', null, 'acme']);
const token = 'AAECAwQFBgd7Ikxhc3RSdW5JRCI6InItMSJ9';

describe('sealed page tokens', () => {
  it('open for the scope and the key they were sealed with, and hide what they carry', () => {
    const seal = new PageSeal();
    const sealed = seal.seal(token, SCOPE);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(token);
    expect(seal.open(sealed, SCOPE)).toBe(token);
    // Sealed twice, the same token reads differently: two pages' tokens cannot be compared.
    expect(seal.seal(token, SCOPE)).not.toBe(sealed);
  });

  it('refuse another scope, another key, a changed byte, and what is not a sealed token', () => {
    const seal = new PageSeal();
    const sealed = seal.seal(token, SCOPE);
    const refused = /pageToken: not a token this server gave for this list/;
    expect(() => seal.open(sealed, SCOPE.replace('ann', 'olga'))).toThrow(refused);
    expect(() => new PageSeal().open(sealed, SCOPE)).toThrow(InvalidInputError);
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[14] = bytes[14]! ^ 1;
    expect(() => seal.open(bytes.toString('base64url'), SCOPE)).toThrow(refused);
    for (const bad of ['', 'AAAA', 'not a token', 'A'.repeat(6001)])
      expect(() => seal.open(bad, SCOPE)).toThrow(refused);
  });

  it('open on every replica given the same pageTokenKey', () => {
    const key = 'k'.repeat(32);
    expect(new PageSeal(key).open(new PageSeal(key).seal(token, SCOPE), SCOPE)).toBe(token);
    expect(() => new PageSeal('short')).toThrow(/pageTokenKey: a secret of at least 32 characters/);
  });
});
