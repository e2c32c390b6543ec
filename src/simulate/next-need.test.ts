import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { createNextNeedProbe, hasWholeToken } from './next-need.js';

/** A session: the agent reads a file, runs the tests, then (after the point at 4) edits and reruns. */
const messages: Message[] = [
  { role: 'user', content: 'Make the retry in sync.go back off.' },
  {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: '/repo/internal/sync.go' } },
      { type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'go test ./internal/...' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'r1',
        content: '  10→func runSync(cfg *Config) error {\n  11→\treturn retryOnce(cfg)\n  12→}',
      },
      { type: 'tool_result', tool_use_id: 'b1', content: 'FAIL TestSyncRetry' },
    ],
  },
  { role: 'assistant', content: 'The retry has no backoff.' },
  // The point: index 4. What follows is the agent's next calls.
  {
    role: 'user',
    content: 'go on',
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'e1',
        name: 'Edit',
        input: {
          file_path: '/repo/internal/sync.go',
          old_string: '\treturn retryOnce(cfg)',
          new_string: '\treturn retryWithBackoff(cfg)',
        },
      },
      { type: 'tool_use', id: 'b2', name: 'Bash', input: { command: 'go test ./internal/...' } },
    ],
  },
];

const context = (text: string): { messages: Message[] } => ({ messages: [{ role: 'user', content: text }] });

describe('createNextNeedProbe', () => {
  const probe = createNextNeedProbe({ messages });

  it('counts what the next calls use that the history held: not the new identifier', () => {
    expect(probe.items(4, context('')).map(({ kind, text }) => `${kind}:${text}`)).toEqual([
      'files:sync.go',
      'identifiers:retryOnce',
      'edit-texts:return retryOnce(cfg)',
      'commands:go test ./internal/...',
    ]);
  });

  it.each<[string, string, Record<string, number>]>([
    [
      'a context that keeps every item',
      'Edited internal/sync.go: `return retryOnce(cfg)` failed; ran go test ./internal/... (exit 1).',
      { files: 1, identifiers: 1, 'edit-texts': 1, commands: 1 },
    ],
    [
      'a context that drops the identifier and the edit text',
      'Read sync.go; the retry fails. Ran go test ./internal/...',
      { files: 1, identifiers: 0, 'edit-texts': 0, commands: 1 },
    ],
    [
      'a context with the identifier only inside a longer one, in another case, or in a longer file name',
      'retryOnceMore RETRYONCE sync.gox',
      { files: 0, identifiers: 0, 'edit-texts': 0, commands: 0 },
    ],
  ])('%s', (_, text, visible) => {
    const need = probe.measure(4, context(text));
    for (const [kind, count] of Object.entries(visible)) {
      expect(need[kind as keyof typeof need]).toEqual({ visible: count, total: 1 });
    }
  });

  it('looks at the next N calls only', () => {
    const first = createNextNeedProbe({ messages }, { nextCalls: 1 }).measure(4, context(''));
    expect(first.commands).toEqual({ visible: 0, total: 0 });
    expect(first.identifiers).toEqual({ visible: 0, total: 1 });
  });

  it('counts nothing at a point with no calls after it, or before any history', () => {
    expect(probe.measure(messages.length, context('sync.go')).files).toEqual({ visible: 0, total: 0 });
    expect(probe.measure(0, context('sync.go')).files).toEqual({ visible: 0, total: 0 });
  });

  it('counts an item the system prompt showed as in the history', () => {
    const withSystem = createNextNeedProbe({ system: 'Tool: retryWithBackoff', messages });
    expect(withSystem.measure(4, context('retryWithBackoff')).identifiers).toEqual({ visible: 1, total: 2 });
  });
});

describe('hasWholeToken', () => {
  it.each<[string, string, boolean]>([
    ['see src/sync.go.', 'sync.go', true],
    ['see async.go', 'sync.go', false],
    ['sync.go_bak', 'sync.go', false],
    ['(retryOnce)', 'retryOnce', true],
    ['$retryOnce', 'retryOnce', false],
    ['', 'x', false],
  ])('%j has %j: %s', (text, item, expected) => {
    expect(hasWholeToken(text, item)).toBe(expected);
  });
});
