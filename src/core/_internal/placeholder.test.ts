import { describe, expect, it } from 'vitest';
import {
  archiveIdInPlaceholder,
  isPlaceholderText,
  toolOutcome,
  toolResultPlaceholder,
} from './placeholder.js';

const result = (content: string, isError?: boolean) => ({
  type: 'tool_result' as const,
  tool_use_id: 't1',
  content,
  ...(isError === undefined ? {} : { is_error: isError }),
});

describe('toolOutcome', () => {
  it('reads a block again when its text or its error flag changed since the last reading', () => {
    const block = result('<returncode>0</returncode>\nall good');
    expect(toolOutcome(block, block.content)).toEqual({ failed: false, exitCode: 0 });
    expect(toolOutcome(block, '<returncode>3</returncode>\nbroken')).toMatchObject({
      failed: true,
      exitCode: 3,
    });
    const flagged = result('permission refused');
    expect(toolOutcome(flagged, flagged.content).failed).toBe(false);
    Object.assign(flagged, { is_error: true });
    expect(toolOutcome(flagged, flagged.content).failed).toBe(true);
  });

  it.each([
    [
      'a mini-swe-agent return code',
      '<returncode>2</returncode>\n<output>\nls: cannot access x: No such file\n</output>',
      2,
      'ls: cannot access x: No such file',
    ],
    [
      'the exception that ends a Python traceback',
      '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "a.py", line 3, in <module>\n    import x\nModuleNotFoundError: No module named \'x\'\n</output>',
      1,
      "ModuleNotFoundError: No module named 'x'",
    ],
    [
      'pytest colours and its E prefix',
      '\u001b[31mE       AssertionError: 3 != 4\u001b[0m\n=== 1 failed ===\nexit code: 1',
      1,
      'AssertionError: 3 != 4',
    ],
    [
      "go build's first diagnostic, not its `# package` header",
      '<returncode>1</returncode>\n# example.com/app/e2e\ne2e/env.go:42:26: undefined: defaultAgent\ne2e/env.go:78:14: undefined: newEnv',
      1,
      'e2e/env.go:42:26: undefined: defaultAgent',
    ],
    ['a clean run', '<returncode>0</returncode>\nall good', 0, undefined],
  ])('reads %s', (_name, text, exitCode, errorLine) => {
    expect(toolOutcome(result(text), text)).toEqual({
      failed: exitCode !== 0,
      exitCode,
      ...(errorLine ? { errorLine } : {}),
    });
  });

  it('falls back to the first line of a result flagged is_error', () => {
    expect(toolOutcome(result('permission refused for /etc', true), 'permission refused for /etc')).toEqual({
      failed: true,
      errorLine: 'permission refused for /etc',
    });
  });

  it.each([
    [
      'pytest failures',
      'tests/test_a.py::test_x FAILED\nE   assert 1 == 2\n==== 1 failed, 4 passed in 0.2s ====',
    ],
    ['a traceback', 'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad'],
    ['a missing command', 'bash: pytets: command not found'],
    ['a compiler error', 'error[E0425]: cannot find value `x` in this scope'],
  ])('sees %s as a failure without an exit code line', (_name, text) => {
    expect(toolOutcome(result(text), text).failed).toBe(true);
  });

  it('does not take a file that mentions errors for a failure', () => {
    const text = 'export function parse() {\n  // error: handled below\n  throw new Error("x");\n}\n'.repeat(
      3,
    );
    expect(toolOutcome(result(text), text).failed).toBe(false);
  });
});

describe('toolOutcome of a result that succeeded', () => {
  it.each([
    [
      'a comment in a file read',
      '    57→\t// The hook should succeed (exit code 1 means blocked)\n    58→\tif err != nil {',
    ],
    ['a log line quoted mid-line', 'worker 3 stopped: exit status 2 after retry\nok'],
  ])('takes no exit code from %s', (_name, text) => {
    expect(toolOutcome(result(text), text)).toEqual({ failed: false });
  });

  it.each([
    [
      'a numbered line of a file read',
      '   141→A reviewer that only sees the diff cannot evaluate intent.\n   142→',
    ],
    ['a search hit of a Go signature', 'src/review.go:211:func computeDiff(root string) (string, error) {'],
    ['a hit of a grep in one file', '332:\terr = filepath.Walk(root, func(p string, walkErr error) error {'],
  ])('quotes no error line from %s', (_name, text) => {
    expect(toolOutcome(result(text), text)).toEqual({ failed: false });
  });

  it('quotes the diagnostic a command opened with, not a later line naming an exception', () => {
    const text =
      '[lint] $ golangci-lint run\ndata.go:277:2: Error return value is not checked\n\tdoc: ValueError is raised';
    expect(toolOutcome(result(text), text)).toEqual({
      failed: false,
      errorLine: 'data.go:277:2: Error return value is not checked',
    });
  });
});

describe('toolResultPlaceholder', () => {
  it('names the tool, key argument, size, outcome and archive id', () => {
    const text = 'Traceback (most recent call last):\n  File "t.py", line 1\nKeyError: \'id\'';
    expect(
      toolResultPlaceholder({
        toolUse: { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'python t.py' } },
        result: result(text, true),
        tokens: 3100,
        archiveId: 'r17',
      }),
    ).toBe(
      '[Previous: used bash(python t.py) → error, 3 lines, 3.1k tokens; "KeyError: \'id\'"; recall r17]',
    );
  });
  it("names the file of opencode's edit, whatever its arguments' order", () => {
    const input = { oldString: 'return 1', newString: 'return 2', filePath: '/repo/a.py' };
    expect(
      toolResultPlaceholder({
        toolUse: { type: 'tool_use', id: 't1', name: 'edit', input },
        result: result('Edit applied successfully.'),
        tokens: 300,
        archiveId: undefined,
      }),
    ).toMatch(/^\[Previous: used edit\(\/repo\/a\.py\) → /);
  });

  it('names the file of a deep path and the end of a long command', () => {
    const placeholder = (name: string, input: Record<string, unknown>) =>
      toolResultPlaceholder({
        toolUse: { type: 'tool_use', id: 't1', name, input },
        result: result('x\n'.repeat(200)),
        tokens: 300,
        archiveId: undefined,
      });
    const path = '/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/strategy/manual_commit_session.go';
    expect(placeholder('Read', { file_path: path })).toMatch(/used Read\(….*\/manual_commit_session\.go\)/);
    const command = `sed -n '1,220p' $(go env GOMODCACHE)/github.com/go-git/go-git/v5@v5.17.0/plumbing/revlist/revlist.go`;
    expect(placeholder('Bash', { command })).toMatch(/used Bash\(sed -n '1,220p' .*….*revlist\.go\)/);
  });
});

describe('isPlaceholderText and archiveIdInPlaceholder', () => {
  it.each([
    ['[Previous: used ls(.) → 3 lines, 40 tokens; recall r2]', 'r2'],
    ['[Previous: used ls(.) → 3 lines, 40 tokens]', undefined],
    ['[Previous: used Read(a.ts) → superseded by the newer copy in toolu_9]', undefined],
    ['The parser fails. […shortened; 2k tokens in full; recall r3]', 'r3'],
    ['The parser fails. […shortened; 2k tokens in full]', undefined],
    ['[elided: 1.2k tokens; recall r4]', 'r4'],
    ['[elided: 2k lines, 9k tokens]', undefined],
  ])('reads %s as a placeholder naming %s', (text, id) => {
    expect(isPlaceholderText(text)).toBe(true);
    expect(archiveIdInPlaceholder(text)).toBe(id);
  });

  it.each(['please recall r12 now', '[see the earlier notes; recall r3]', 'the lint run (recall r9) failed'])(
    'does not read %s as one',
    (text) => {
      expect(isPlaceholderText(text)).toBe(false);
      expect(archiveIdInPlaceholder(text)).toBeUndefined();
    },
  );

  it('writes a placeholder without its marker when no id is given', () => {
    const text = toolResultPlaceholder({
      toolUse: { type: 'tool_use', id: 't1', name: 'ls', input: { path: '.' } },
      result: { type: 'tool_result', tool_use_id: 't1', content: 'a\nb\nc' },
      tokens: 40,
      archiveId: undefined,
    });
    expect(text).toBe('[Previous: used ls(.) → 3 lines, 40 tokens]');
  });
});
