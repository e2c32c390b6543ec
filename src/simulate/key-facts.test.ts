import { describe, expect, it } from 'vitest';
import type { ToolResultBlock, ToolUseBlock } from '../core/model/messages.js';
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

  it('cuts long arguments to the first line, whitespace collapsed, 40 characters', () => {
    const [fact] = extractKeyFacts(use({ command: `a   b ${'x'.repeat(100)}\nsecond line` }), result('ok'));
    expect(fact).toEqual({ kind: 'argument', text: `a b ${'x'.repeat(36)}` });
  });

  it('gives a call that worked no error line, even when its output mentions errors', () => {
    expect(
      extractKeyFacts(use({ path: 'a.py' }), result('    except KeyError as error:\n        raise')),
    ).toEqual([{ kind: 'argument', text: 'a.py' }]);
  });

  it('takes the error line of a result marked is_error', () => {
    expect(
      extractKeyFacts(use({ path: 'a.py' }), result('Error: old_string not found in a.py', true)),
    ).toEqual([
      { kind: 'argument', text: 'a.py' },
      { kind: 'error-line', text: 'Error: old_string not found in a.py' },
    ]);
  });

  it.each([
    ['\nsomething odd happened\nmore', 'something odd happened'],
    ['E       AssertionError: assert   1 == 2', 'AssertionError: assert 1 == 2'],
    ['Traceback (most recent call last):\n  File "x.py"\nValueError: bad', 'ValueError: bad'],
    [
      '<output>\nTraceback (most recent call last):\n  File "m.py", line 3, in <module>\n    run()\ndjango.core.exceptions.ImproperlyConfigured: no DB\n</output>',
      'django.core.exceptions.ImproperlyConfigured: no DB',
    ],
    ['Foo ID: 12\nFAILURE: prefetch returned None', 'FAILURE: prefetch returned None'],
    ['collected 3 items\nFAILED tests/a.py::t - x', 'FAILED tests/a.py::t - x'],
    ['', undefined],
    ['<returncode>1</returncode>\n<output>\nboom\n</output>', 'boom'],
    ['\u001b[31mFAILED\u001b[0m tests/a.py', 'FAILED tests/a.py'],
    // Codex's wrapping repeats the command: it is not what the command printed.
    [
      "Command: /bin/zsh -lc 'rg -n foo'\nChunk ID: f4\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n",
      undefined,
    ],
    [
      "Command: /bin/zsh -lc 'go test ./...'\nChunk ID: b1\nWall time: 1 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\nok  \tpkg/a\n--- FAIL: TestB (0.00s)",
      '--- FAIL: TestB (0.00s)',
    ],
    ['Exit code: 2\nWall time: 0.1 seconds\nOutput:\nmake: *** [all] Error 2', 'make: *** [all] Error 2'],
  ])('first error line of %j is %j', (text, expected) => {
    expect(firstErrorLine(text)).toBe(expected);
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
    expect(
      isFactVisible(
        { kind: 'argument', text: 'a b' },
        requestText(undefined, [{ role: 'user', content: 'a\n  b' }]),
      ),
    ).toBe(true);
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
    expect(text).toBe('sys task edit_file a.ts x done');
  });
});
