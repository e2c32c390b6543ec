/**
 * `agent-compact/tokenizer`: a real BPE {@link TokenCounter} over `gpt-tokenizer`. This is the only
 * module of the package that imports `gpt-tokenizer`; the core stays dependency-free.
 * `gpt-tokenizer` is an optional peer dependency: `npm install gpt-tokenizer` (without it the factory
 * throws a `CompactError` with code `MISSING_DEPENDENCY` that says so).
 */
import { CompactError } from '../core/model/errors.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import { loadCountTokens, type TiktokenEncoding } from './load-tokenizer.js';
import { countWithRunsCut } from './long-runs.js';

export type { TiktokenEncoding } from './load-tokenizer.js';

/** Options of {@link createTiktokenCounter}. */
export interface TiktokenCounterOptions {
  /**
   * The encoding: `o200k` (`o200k_base`, GPT-4o and later) or `cl100k` (`cl100k_base`, GPT-4 and
   * GPT-3.5). Other providers' tokenizers differ; anchor the counts to provider usage with
   * `createAnchoredCounter` to correct for that.
   * @default 'o200k'
   */
  encoding?: TiktokenEncoding;
}

// Text from tool output may contain strings such as `<|endoftext|>`; they are counted as the plain
// text they are in a prompt, instead of throwing as gpt-tokenizer does by default.
const specialTokensAsText = { disallowedSpecial: new Set<string>() };

/**
 * A {@link TokenCounter} that counts with OpenAI's BPE tables (exact for OpenAI models, a close
 * estimate for others). Only the chosen table is loaded, when the factory is called.
 * Needs the optional peer `gpt-tokenizer` (`npm install gpt-tokenizer`).
 * @throws {CompactError} `MISSING_DEPENDENCY` when `gpt-tokenizer` is not installed.
 *
 * @example
 * import { createTiktokenCounter } from 'agent-compact/tokenizer';
 *
 * const counter = createTiktokenCounter({ encoding: 'o200k' });
 * counter.countText('Hello, world!'); // 4
 */
export function createTiktokenCounter({ encoding = 'o200k' }: TiktokenCounterOptions = {}): TokenCounter {
  switch (encoding) {
    case 'o200k':
    case 'cl100k': {
      const count = loadCountTokens(encoding);
      return {
        specificationVersion: 'v1',
        name: encoding,
        // A run of one kind of character is counted in pieces: the BPE is quadratic in its length.
        countText: (text) => countWithRunsCut(text, (piece) => count(piece, specialTokensAsText)),
      };
    }
    default: {
      const unknown: never = encoding;
      throw new CompactError(`unknown encoding "${String(unknown)}"; expected "o200k" or "cl100k"`, {
        code: 'INVALID_OPTIONS',
      });
    }
  }
}
