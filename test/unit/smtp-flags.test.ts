import { describe, expect, it } from 'vitest';
import { describeFlags, emailFlags, isRoleLocalPart } from '../../src/smtp/flags.ts';

describe('emailFlags', () => {
  it('flags a disposable domain', () => {
    expect(emailFlags('someone@mailinator.com').disposable).toBe(true);
    expect(emailFlags('someone@acme-corp.example').disposable).toBe(false);
  });

  it('flags subdomains of wildcard disposable domains', () => {
    expect(emailFlags('x@anything.33mail.com').disposable).toBe(true);
  });

  it('flags free mailbox providers', () => {
    expect(emailFlags('jane@gmail.com').free).toBe(true);
    expect(emailFlags('jane@hotmail.com').free).toBe(true);
    expect(emailFlags('jane@acme-corp.example').free).toBe(false);
  });

  it('flags role local parts, ignoring case, separators and +tags', () => {
    expect(emailFlags('Info@acme.example').role).toBe(true);
    expect(isRoleLocalPart('no-reply')).toBe(true);
    expect(isRoleLocalPart('customer.service')).toBe(true);
    expect(isRoleLocalPart('sales+emea')).toBe(true);
    expect(isRoleLocalPart('jane.doe')).toBe(false);
    expect(isRoleLocalPart('salesforce')).toBe(false);
  });

  it('uses the ASCII form of an IDN domain', () => {
    expect(emailFlags('x@bücher.de')).toEqual({ disposable: false, role: false, free: false });
  });
});

describe('describeFlags', () => {
  it('lists the flags that are set', () => {
    expect(describeFlags({ disposable: false, role: true, free: true })).toBe('; flags: role, free');
    expect(describeFlags({ disposable: false, role: false, free: false })).toBe('');
  });
});
