/**
 * Loads `gpt-tokenizer`, an optional peer dependency: it is 55 MB installed and only this subpath
 * and the CLI's BPE counting use it. The package name is a variable so a test can point it at a
 * module that does not exist and see what a user without the peer sees.
 */
import { createRequire } from 'node:module';
import type { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CompactError } from '../core/model/errors.js';

/** A BPE encoding `createTiktokenCounter` can use. */
export type TiktokenEncoding = 'o200k' | 'cl100k';

export type CountTokens = typeof countTokens;

/** The one line that tells a user how to get the tokenizer. */
export const TOKENIZER_INSTALL_COMMAND = 'npm install gpt-tokenizer';

const require = createRequire(import.meta.url);
const ENTRY_POINTS: Record<TiktokenEncoding, string> = {
  o200k: 'encoding/o200k_base',
  cl100k: 'encoding/cl100k_base',
};

let packageName = 'gpt-tokenizer';
const loaded = new Map<TiktokenEncoding, CountTokens>();

/** For tests: load the tokenizer from another package name (one that is missing, say). */
export function setTokenizerPackage(name: string): void {
  packageName = name;
  loaded.clear();
}

/** Whether the tokenizer package can be loaded, without loading its tables. */
export function isTokenizerInstalled(): boolean {
  try {
    require.resolve(`${packageName}/${ENTRY_POINTS.o200k}`);
    return true;
  } catch {
    return false;
  }
}

// Each table costs ~130-250 ms and tens of MB to load, so only the encoding asked for is loaded, when
// its first counter is created, from its encoding-specific entry point (never the package root, which
// loads them all). `require` keeps the factory synchronous; this subpath is for Node.
export function loadCountTokens(encoding: TiktokenEncoding): CountTokens {
  let count = loaded.get(encoding);
  if (!count) {
    const specifier = `${packageName}/${ENTRY_POINTS[encoding]}`;
    let encodingModule: { countTokens: CountTokens };
    try {
      encodingModule = require(specifier);
    } catch (error) {
      if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
      throw new CompactError(
        `agent-compact/tokenizer: the optional peer dependency "${packageName}" is not installed; ` +
          `install it with: ${TOKENIZER_INSTALL_COMMAND}`,
        { code: 'MISSING_DEPENDENCY', cause: error },
      );
    }
    count = encodingModule.countTokens;
    loaded.set(encoding, count);
  }
  return count;
}
