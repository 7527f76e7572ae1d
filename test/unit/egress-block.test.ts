import { describe, expect, it } from 'vitest';
import { blamesEgress } from '../../src/domain/egress-block.ts';
import { parseReply } from '../../src/domain/smtp-reply.ts';
import { EGRESS_BLOCK_REPLIES, NOT_EGRESS_BLOCKS } from '../support/egress-block-replies.ts';

describe('a reply that blames our egress (CONTRACT §13)', () => {
  it.each(EGRESS_BLOCK_REPLIES.map((row) => [row.who, row] as const))('%s: about the egress', (_, row) => {
    expect(blamesEgress(parseReply(row.reply))).toBe(true);
  });

  it.each(NOT_EGRESS_BLOCKS.map((row) => [row.who, row] as const))('%s: not about the egress', (_, row) => {
    expect(blamesEgress(parseReply(row.reply))).toBe(false);
  });

  it('a 2xx or 3xx is never a block, whatever its text says', () => {
    expect(blamesEgress(parseReply(['250 2.1.0 Ok, not on any blocklist']))).toBe(false);
  });
});
