/** Internal: small helpers the importers share for reading untrusted JSON values. */
import { CompactError } from '../core/model/errors.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** An `UNREADABLE_INPUT` error located at `source: path`. */
export function unreadable(
  message: string,
  path: string | undefined,
  source: string | undefined,
): CompactError {
  const where = [source, path].filter((part) => part !== undefined && part !== '').join(': ');
  return new CompactError(message, { code: 'UNREADABLE_INPUT', ...(where ? { path: where } : {}) });
}

/**
 * `run()`, with a `CompactError` it throws located under `where` (`traffic.jsonl:12:
 * contents[1].parts`, `rollout.jsonl: messages[20]`); `where` undefined leaves it as it is.
 */
export function within<Result>(where: string | undefined, run: () => Result): Result {
  try {
    return run();
  } catch (error) {
    if (where === undefined || !CompactError.isInstance(error)) throw error;
    const path = error.path === undefined ? where : `${where}: ${error.path}`;
    const message = error.path === undefined ? error.message : error.message.slice(error.path.length + 2);
    throw new CompactError(message, {
      code: error.code,
      path,
      cause: error,
      ...(error.problems === undefined ? {} : { problems: error.problems }),
    });
  }
}

/** Text content that is a string or a list of OpenAI/Anthropic text parts. */
export function textContent(value: unknown, path: string, source: string | undefined): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((part) => isObject(part) && typeof part.text === 'string')) {
    return value.map((part) => (part as { text: string }).text).join('\n');
  }
  throw unreadable(`expected string, got ${typeName(value)}`, path, source);
}
