/** What the importers of plain request logs (one request, or `{ request, response }`, a line) share. */
import { CompactError } from '../core/errors.js';
import type { ImportedUsage } from './imported-transcript.js';

/** The one-line error for a log line that is not a request of the format, naming where it is. */
export function notARequestLine(
  expected: string,
  lineNumber: number,
  source: string | undefined,
): CompactError {
  const where = source === undefined ? `line ${lineNumber}` : `${source}:${lineNumber}`;
  return new CompactError(`expected ${expected} or { "request", "response" }`, {
    code: 'UNREADABLE_INPUT',
    path: where,
  });
}

/**
 * The usage of each assistant turn: a response's usage belongs to the turn after the ones its
 * request already holds (`answeredTurn`), when that turn is in the conversation.
 */
export function usageByTurn<Exchange>(
  exchanges: readonly Exchange[],
  turns: number,
  read: (exchange: Exchange) => { usage: ImportedUsage | undefined; answeredTurn: () => number },
): (ImportedUsage | undefined)[] {
  const usage: (ImportedUsage | undefined)[] = new Array(turns).fill(undefined);
  for (const exchange of exchanges) {
    const { usage: reported, answeredTurn } = read(exchange);
    if (!reported) continue;
    const turn = answeredTurn();
    if (turn < turns) usage[turn] = reported;
  }
  return usage;
}
