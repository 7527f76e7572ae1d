import { describe, expect, it } from 'vitest';
import type { ReplyClass } from '../../src/domain/smtp-reply.ts';
import {
  classifyRcptReply,
  formatReply,
  parseReply,
  ReplyAssembler,
  SmtpReplySyntaxError,
} from '../../src/domain/smtp-reply.ts';

const GMAIL_NO_SUCH_USER = [
  '550-5.1.1 The email account that you tried to reach does not exist. Please try',
  "550-5.1.1 double-checking the recipient's email address for typos or",
  '550-5.1.1 unnecessary spaces. For more information, go to',
  '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser 41be03b00d2f7-5e4d2c6d0e4si1234567a12.123 - gsmtp',
];

describe('parseReply', () => {
  it('joins a multi-line reply and keeps its enhanced code once', () => {
    const reply = parseReply(GMAIL_NO_SUCH_USER);
    expect(reply.code).toBe(550);
    expect(reply.enhanced).toBe('5.1.1');
    expect(reply.text).toMatch(/^The email account that you tried to reach does not exist\. .* - gsmtp$/);
    expect(reply.text).not.toContain('5.1.1');
    expect(reply.lines).toHaveLength(4);
  });

  it('reads a reply without enhanced code', () => {
    expect(parseReply(['250 OK'])).toEqual({ code: 250, enhanced: null, text: 'OK', lines: ['250 OK'] });
  });

  it('accepts a bare code and the #-prefixed enhanced code of old Exchange servers', () => {
    expect(parseReply(['250']).text).toBe('');
    expect(parseReply(['550 #5.1.0 Address rejected']).enhanced).toBe('5.1.0');
  });

  it('ignores an enhanced code whose class disagrees with the reply code', () => {
    const reply = parseReply(['550 4.1.1 odd server']);
    expect(reply.enhanced).toBeNull();
    expect(reply.text).toBe('4.1.1 odd server');
  });

  it('does not mistake a number in the text for an enhanced code', () => {
    expect(parseReply(['250 2.0.0.1 is not one']).enhanced).toBeNull();
  });

  it('refuses lines that are not SMTP', () => {
    expect(() => parseReply(['HTTP/1.1 400 Bad Request'])).toThrow(SmtpReplySyntaxError);
    expect(() => parseReply([])).toThrow(SmtpReplySyntaxError);
  });
});

describe('ReplyAssembler', () => {
  it('assembles multi-line replies split across arbitrary chunks', () => {
    const assembler = new ReplyAssembler();
    const wire =
      '250-mx.example.com Hello\r\n250-PIPELINING\r\n250-STARTTLS\r\n250 8BITMIME\r\n250 2.1.0 Ok\r\n';
    const replies = [...wire].flatMap((char) => assembler.push(char));
    expect(replies.map((r) => r.code)).toEqual([250, 250]);
    expect(replies[0]?.lines).toEqual([
      '250-mx.example.com Hello',
      '250-PIPELINING',
      '250-STARTTLS',
      '250 8BITMIME',
    ]);
    expect(replies[1]?.enhanced).toBe('2.1.0');
  });

  it('returns several replies from one chunk and keeps an incomplete line for later', () => {
    const assembler = new ReplyAssembler();
    expect(assembler.push('250 first\r\n550 5.1.1 second\r\n451 4.7')).toHaveLength(2);
    const [third] = assembler.push('.1 greylisted\r\n');
    expect(third && formatReply(third)).toBe('451 4.7.1 greylisted');
  });

  it('tolerates bare LF line endings', () => {
    expect(new ReplyAssembler().push('220-hello\n220 ready\n')).toHaveLength(1);
  });

  it('throws on garbage', () => {
    expect(() => new ReplyAssembler().push('* OK IMAP4rev1 ready\r\n')).toThrow(SmtpReplySyntaxError);
  });

  it('throws when a line never ends', () => {
    expect(() => new ReplyAssembler().push(`250 ${'x'.repeat(70_000)}`)).toThrow(SmtpReplySyntaxError);
  });
});

describe('formatReply', () => {
  it('renders code, enhanced code and text', () => {
    expect(formatReply(parseReply(['550-5.1.1 No such', '550 5.1.1 user']))).toBe('550 5.1.1 No such user');
    expect(formatReply(parseReply(['250 OK']))).toBe('250 OK');
  });
});

describe('classifyRcptReply', () => {
  const cases: [string, string[], ReplyClass][] = [
    ['plain 250', ['250 OK'], 'accepted'],
    ['250 2.1.5', ['250 2.1.5 Recipient <a@b.c> ok'], 'accepted'],
    ['251 forwarded', ['251 2.1.5 User not local; will forward to <x@y.z>'], 'accepted'],
    ['Gmail 550-5.1.1 multi-line', GMAIL_NO_SUCH_USER, 'mailbox-unknown'],
    [
      'Postfix unknown user',
      ['550 5.1.1 <bob@x.com>: Recipient address rejected: User unknown in virtual mailbox table'],
      'mailbox-unknown',
    ],
    [
      'Outlook 550 5.5.0 mailbox unavailable',
      ['550 5.5.0 Requested action not taken: mailbox unavailable'],
      'mailbox-unknown',
    ],
    [
      'Yahoo 554 no account',
      [
        "554 delivery error: dd This user doesn't have a yahoo.com account (bob@yahoo.com) [0] - mta1.mail.bf1.yahoo.com",
      ],
      'mailbox-unknown',
    ],
    [
      'Gmail disabled account 5.2.1',
      ['550 5.2.1 The email account that you tried to reach is disabled.'],
      'mailbox-unknown',
    ],
    ['bare 550', ['550 Requested action not taken'], 'mailbox-unknown'],
    ['551 user not local', ['551 User not local; please try <x@y.z>'], 'mailbox-unknown'],
    ['553 mailbox name not allowed', ['553 5.1.3 Mailbox name not allowed'], 'mailbox-unknown'],
    ['null MX destination 5.1.10', ['556 5.1.10 Recipient address has null MX'], 'mailbox-unknown'],
    ['5.1.0 with "recipient not found"', ['550 5.1.0 Recipient not found'], 'mailbox-unknown'],
    [
      'Spamhaus 550 5.7.1',
      ['550 5.7.1 Service unavailable; client [192.0.2.1] blocked using zen.spamhaus.org'],
      'policy',
    ],
    ['554 5.7.1 policy', ['554 5.7.1 <bob@x.com>: Relay access denied'], 'policy'],
    ['Outlook 5.7.606 banned IP', ['550 5.7.606 Access denied, banned sending IP [192.0.2.1]'], 'policy'],
    [
      'Exchange 5.4.1 access denied',
      ['550 5.4.1 Recipient address rejected: Access denied. AS(201806281)'],
      'policy',
    ],
    [
      'blocklist text without enhanced code',
      ['550 Your IP is on our blocklist, contact postmaster'],
      'policy',
    ],
    ['blacklist text', ['554 Mail from 192.0.2.1 refused: blacklisted by b.barracudacentral.org'], 'policy'],
    ['reputation text', ['550 Message rejected due to poor sender reputation'], 'policy'],
    [
      'policy text even with 550',
      ['550 Requested action not taken: mailbox unavailable (rejected by policy)'],
      'policy',
    ],
    [
      'Gmail 452 4.5.3',
      [
        '452-4.5.3 Your message has too many recipients. For more information regarding',
        "452 4.5.3 Google's sending limits, visit https://support.google.com/mail/answer/6592 - gsmtp",
      ],
      'too-many-recipients',
    ],
    ['bare 452', ['452 Too many recipients'], 'too-many-recipients'],
    ['bare 452 whatever its text (RFC 5321 §4.5.3.1.10)', ['452 Error: try again'], 'too-many-recipients'],
    ['5.5.3 too many recipients', ['552 5.5.3 Too many recipients'], 'too-many-recipients'],
    ['452 4.2.2 mailbox full is temporary', ['452 4.2.2 Mailbox full'], 'temporary'],
    [
      '451 4.7.1 greylisting',
      [
        '451 4.7.1 <bob@x.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/x.com.html',
      ],
      'temporary',
    ],
    [
      '450 4.2.1 try later',
      [
        '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages',
      ],
      'temporary',
    ],
    [
      '451 4.7.1 temporary block',
      ['451 4.7.1 Service unavailable - try again later (blocked using spamhaus)'],
      'temporary',
    ],
    ['421 closing', ['421 4.7.0 Try again later, closing connection'], 'closing'],
    ['421 without enhanced code', ['421 mx.example.com Service not available'], 'closing'],
    ['554 transaction failed', ['554 5.0.0 Transaction failed'], 'rejected'],
    ['552 mailbox full', ['552 5.2.2 Mailbox full'], 'rejected'],
    ['500 syntax error', ['500 5.5.2 Syntax error, command unrecognized'], 'rejected'],
  ];

  it.each(cases)('%s', (_name, lines, expected) => {
    expect(classifyRcptReply(parseReply(lines))).toBe(expected);
  });

  it('never calls a 5.7.x refusal an unknown mailbox, whatever the text says', () => {
    expect(classifyRcptReply(parseReply(['550 5.7.1 User unknown']))).toBe('policy');
  });
});
