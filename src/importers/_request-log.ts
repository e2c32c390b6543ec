/** What the importers of plain request logs (one request, or `{ request, response }`, a line) share. */
import { CompactError } from '../core/model/errors.js';
import { within } from './_json.js';
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
 * Every line read as an exchange, and the last one, whose request (with its answer) is the
 * conversation; a file with none is a one-line error.
 */
export function readExchanges<Exchange>(
  lines: ReadonlyArray<{ value: unknown; lineNumber: number }>,
  exchangeOf: (value: unknown, lineNumber: number, source: string | undefined) => Exchange,
  format: string,
  source: string | undefined,
): { exchanges: Exchange[]; last: Exchange; lastLine: number } {
  const exchanges = lines.map(({ value, lineNumber }) => exchangeOf(value, lineNumber, source));
  const last = exchanges.at(-1);
  if (last === undefined)
    throw new CompactError(`no ${format} requests in the file`, { code: 'UNREADABLE_INPUT', path: source });
  return { exchanges, last, lastLine: lines.at(-1)!.lineNumber };
}

/**
 * `convert()`, with a `CompactError` it throws located at the log line it read
 * (`traffic.jsonl:12: contents[1].parts`) instead of only a path into that line's request.
 */
export function atLogLine<Result>(
  convert: () => Result,
  lineNumber: number,
  source: string | undefined,
): Result {
  return within(source === undefined ? `line ${lineNumber}` : `${source}:${lineNumber}`, convert);
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
