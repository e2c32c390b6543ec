/**
 * `agent-compact/tokenizer`: a real BPE {@link TokenCounter} over `gpt-tokenizer`. This is the only
 * module of the package that imports `gpt-tokenizer`; the core stays dependency-free.
 */
import { createRequire } from 'node:module';
import type { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CompactError } from '../core/errors.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';

/** A BPE encoding {@link createTiktokenCounter} can use. */
export type TiktokenEncoding = 'o200k' | 'cl100k';

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

type CountTokens = typeof countTokens;

const require = createRequire(import.meta.url);
const loaded = new Map<TiktokenEncoding, CountTokens>();

// Each table costs ~130-250 ms and tens of MB to load, so only the encoding asked for is loaded, when
// its first counter is created, from its encoding-specific entry point (never the package root, which
// loads them all). `require` keeps the factory synchronous; this subpath is for Node.
function loadCountTokens(encoding: TiktokenEncoding): CountTokens {
  let count = loaded.get(encoding);
  if (!count) {
    const encodingModule =
      encoding === 'o200k'
        ? require('gpt-tokenizer/encoding/o200k_base')
        : require('gpt-tokenizer/encoding/cl100k_base');
    count = (encodingModule as { countTokens: CountTokens }).countTokens;
    loaded.set(encoding, count);
  }
  return count;
}

// Text from tool output may contain strings such as `<|endoftext|>`; they are counted as the plain
// text they are in a prompt, instead of throwing as gpt-tokenizer does by default.
const specialTokensAsText = { disallowedSpecial: new Set<string>() };

/**
 * A {@link TokenCounter} that counts with OpenAI's BPE tables (exact for OpenAI models, a close
 * estimate for others). Only the chosen table is loaded, when the factory is called.
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
        countText: (text) => count(text, specialTokensAsText),
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
