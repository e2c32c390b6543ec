import { describe, expect, it } from 'vitest';
import type { ToolResultBlock, ToolUseBlock } from '../core/types.js';
import { exitCodeOf, extractKeyFacts, firstErrorLine, isFactVisible, requestText } from './key-facts.js';

const use = (input: unknown): ToolUseBlock => ({ type: 'tool_use', id: 't1', name: 'bash', input });
const result = (content: string, is_error?: boolean): ToolResultBlock => ({
  type: 'tool_result',
  tool_use_id: 't1',
  content,
  ...(is_error === undefined ? {} : { is_error }),
});

describe('extractKeyFacts', () => {
  it('takes the path, the non-zero exit code and the first error line', () => {
    expect(
      extractKeyFacts(
        use({ command: 'pytest tests/test_cart.py -q' }),
        result(
          "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  x\nKeyError: 'sku'\n</output>",
        ),
      ),
    ).toEqual([
      { kind: 'argument', text: 'pytest tests/test_cart.py -q' },
      { kind: 'exit-code', text: '1' },
      { kind: 'error-line', text: "KeyError: 'sku'" },
    ]);
  });

  it('takes only the argument of a call that worked', () => {
    expect(extractKeyFacts(use({ path: 'src/app.ts' }), result('line 1\nline 2'))).toEqual([
      { kind: 'argument', text: 'src/app.ts' },
    ]);
  });

  it('cuts long arguments to the first line and 60 characters', () => {
    const [fact] = extractKeyFacts(use({ command: `${'x'.repeat(100)}\nsecond line` }), result('ok'));
    expect(fact).toEqual({ kind: 'argument', text: 'x'.repeat(60) });
  });

  it('uses the first line of a result marked is_error when no line reads like an error', () => {
    expect(firstErrorLine('\nsomething odd happened\nmore', true)).toBe('something odd happened');
    expect(firstErrorLine('something odd happened', false)).toBeUndefined();
  });
});

describe('exitCodeOf', () => {
  it.each([
    ['<returncode>2</returncode>', 2],
    ['Exit code: 127', 127],
    ['process exited with code 1', 1],
    ['<returncode>0</returncode>', undefined],
    ['no code', undefined],
  ])('%j → %j', (text, code) => {
    expect(exitCodeOf(text)).toBe(code);
  });
});

describe('isFactVisible', () => {
  it('finds arguments and error lines as substrings', () => {
    expect(isFactVisible({ kind: 'argument', text: 'src/app.ts' }, '[used read_file(src/app.ts)]')).toBe(
      true,
    );
    expect(isFactVisible({ kind: 'error-line', text: 'KeyError' }, 'no error here')).toBe(false);
  });

  it.each([
    ['exit 1', true],
    ['exit code 1', true],
    ['<returncode>1</returncode>', true],
    ['exit 10', false],
    ['1 file changed', false],
  ])('exit code 1 in %j: %s', (text, visible) => {
    expect(isFactVisible({ kind: 'exit-code', text: '1' }, text)).toBe(visible);
  });
});

describe('requestText', () => {
  it('reads the system prompt, text, tool inputs and tool results', () => {
    const text = requestText('sys', [
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'edit_file', input: { path: 'a.ts', edits: [{ old: 'x' }] } },
        ],
      },
      { role: 'user', content: [result('done')] },
    ]);
    expect(text.split('\n')).toEqual(['sys', 'task', 'edit_file', 'a.ts', 'x', 'done']);
  });
});
