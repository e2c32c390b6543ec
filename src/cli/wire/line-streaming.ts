/**
 * The format whose JSONL conversation files the CLI reads one line at a time: each line is a whole
 * message whose tool results sit in the message itself (an Anthropic `user` message), so a message
 * can be counted or compacted before the next line is read. Other formats' tool results span
 * messages; their files are read whole.
 */
import type { WireFormat } from 'agent-compact/wire';
import { detectFormat } from 'agent-compact/wire';

/** What one JSONL line says about a file that may stream. */
export type LineVerdict = 'other-format' | 'settled' | 'open';

/** The format that streams by line. */
export const streamedFormat = 'anthropic' satisfies WireFormat;

/**
 * What a line says, as the whole-file detection reads it: another format's mark means the file must
 * be read whole; an Anthropic mark (still Anthropic with an OpenAI message after it) settles it.
 */
export function lineVerdict(line: unknown): LineVerdict {
  if (detectFormat([line]) !== streamedFormat) return 'other-format';
  return detectFormat([line, { role: 'tool' }]) === streamedFormat ? 'settled' : 'open';
}
