import { afterEach, describe, expect, it } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import { createTiktokenCounter } from './index.js';
import { isTokenizerInstalled, setTokenizerPackage } from './load-tokenizer.js';

// A name no registry holds, standing in for a user who has not installed the optional peer.
const MISSING = 'agent-compact-no-such-tokenizer';

afterEach(() => setTokenizerPackage('gpt-tokenizer'));

describe('gpt-tokenizer as an optional peer', () => {
  it('counts with the tables when gpt-tokenizer is installed', () => {
    expect(isTokenizerInstalled()).toBe(true);
    expect(createTiktokenCounter().countText('Hello, world!')).toBe(4);
  });

  it('says how to install it when it is missing', () => {
    setTokenizerPackage(MISSING);
    expect(isTokenizerInstalled()).toBe(false);
    let thrown: unknown;
    try {
      createTiktokenCounter({ encoding: 'cl100k' });
    } catch (error) {
      thrown = error;
    }
    expect(CompactError.isInstance(thrown)).toBe(true);
    expect((thrown as CompactError).code).toBe('MISSING_DEPENDENCY');
    expect((thrown as CompactError).message).toContain('install it with: npm install gpt-tokenizer');
  });
});
