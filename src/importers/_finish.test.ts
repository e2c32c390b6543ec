import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { finishImport } from './_finish.js';

// A block with no type: what a converter passes through from a damaged file, and no repair fixes.
const broken = [{ role: 'user', content: [{ text: 'hi' }] }] as unknown as Message[];

describe('finishImport', () => {
  it('refuses a conversation no repair makes valid with the file it came from', () => {
    expect(() =>
      finishImport({ messages: broken, usage: [], format: 'codex', source: 'rollout.jsonl' }),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_TRANSCRIPT', path: 'rollout.jsonl: messages[0].content[0]' }),
    );
  });

  it('names only the place when there is no file', () => {
    expect(() => finishImport({ messages: broken, usage: [], format: 'codex' })).toThrow(
      expect.objectContaining({ code: 'INVALID_TRANSCRIPT', path: 'messages[0].content[0]' }),
    );
  });
});
