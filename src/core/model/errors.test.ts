import { describe, expect, it } from 'vitest';
import { CompactError } from './errors.js';

describe('CompactError', () => {
  it('carries code, path and cause, and prefixes the message with the path', () => {
    const cause = new Error('root');
    const error = new CompactError('tool_result "t1" has no matching tool_use', {
      code: 'INVALID_TRANSCRIPT',
      path: 'messages[3].content[0]',
      cause,
    });
    expect(error.message).toBe('messages[3].content[0]: tool_result "t1" has no matching tool_use');
    expect(error.code).toBe('INVALID_TRANSCRIPT');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('CompactError');
  });

  it('isInstance recognises errors from another copy of the package by the Symbol.for marker', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('agent-compact.error')]: true });
    expect(CompactError.isInstance(foreign)).toBe(true);
    expect(CompactError.isInstance(new Error('x'))).toBe(false);
    expect(CompactError.isInstance(null)).toBe(false);
    expect(CompactError.isInstance(new CompactError('m', { code: 'ABORTED' }))).toBe(true);
  });

  it('isInstance answers false for a thrown Proxy whose every read throws, instead of throwing', () => {
    const unreadable = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(CompactError.isInstance(unreadable)).toBe(false);
  });

  it('names subclasses after themselves', () => {
    class SubError extends CompactError {}
    expect(new SubError('m', { code: 'ABORTED' }).name).toBe('SubError');
  });
});
