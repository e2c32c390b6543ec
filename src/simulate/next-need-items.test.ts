import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../core/model/messages.js';
import { grepPatterns, isCodeShaped, type NeedItems, toolCallNeeds } from './next-need-items.js';

const call = (name: string, input: unknown): ToolUseBlock => ({
  type: 'tool_use',
  id: 'call_1',
  name,
  input,
});

const none: NeedItems = { files: [], identifiers: [], 'edit-texts': [], commands: [] };

describe('toolCallNeeds', () => {
  it.each<[string, ToolUseBlock, Partial<NeedItems>]>([
    [
      'Read: the basename',
      call('Read', { file_path: '/repo/src/transcript.go', limit: 40 }),
      { files: ['transcript.go'] },
    ],
    [
      'Edit: file, identifiers of both sides, first line of old_string with a letter',
      call('Edit', {
        file_path: 'src/a.ts',
        old_string: '  }\n  const total = countTokens(messages);\n',
        new_string: 'const total = countTokensOnce(messages, cache_size);',
      }),
      {
        files: ['a.ts'],
        identifiers: ['countTokens', 'countTokensOnce', 'cache_size'],
        'edit-texts': ['const total = countTokens(messages);'],
      },
    ],
    [
      'MultiEdit: each edit',
      call('MultiEdit', {
        file_path: 'b.py',
        edits: [
          { old_string: 'def load_config():', new_string: 'def load_config(path):' },
          { old_string: 'x = parseArgs()', new_string: 'x = 1' },
        ],
      }),
      {
        files: ['b.py'],
        identifiers: ['load_config', 'parseArgs'],
        'edit-texts': ['def load_config():', 'x = parseArgs()'],
      },
    ],
    [
      'Grep: a bare word counts whatever its shape',
      call('Grep', { pattern: '\\btimeout\\b', path: 'src' }),
      { identifiers: ['timeout'] },
    ],
    [
      'Grep: a regex keeps its code-shaped words only',
      call('Grep', { pattern: 'func .*CalculateTokenUsage|token count' }),
      { identifiers: ['CalculateTokenUsage'] },
    ],
    [
      'Bash: the command whole, its files, its grep pattern, its code-shaped words',
      call('Bash', {
        command: 'grep -n -A 3 "retry" internal/sync.go && go test ./... -run TestSyncRetry',
        description: 'x',
      }),
      {
        files: ['sync.go'],
        identifiers: ['retry', 'TestSyncRetry'],
        commands: ['grep -n -A 3 "retry" internal/sync.go && go test ./... -run TestSyncRetry'],
      },
    ],
    [
      'Codex shell array: the script is the command',
      call('shell', { command: ['bash', '-lc', 'cat README.md\n'] }),
      { files: ['README.md'], commands: ['cat README.md'] },
    ],
    [
      'mini-swe-agent bash: first line only, files of every line',
      call('bash', { command: 'cd /testbed\npython reproduce.py' }),
      { files: ['reproduce.py'], commands: ['cd /testbed'] },
    ],
    [
      'Codex apply_patch: files, hunk identifiers, first context-or-removed line per hunk',
      call(
        'apply_patch',
        '*** Begin Patch\n*** Update File: src/sync.rs\n@@ fn run_sync(\n     let mut retries = 0;\n-    retry_once(&cfg);\n+    retry_with_backoff(&cfg);\n*** Add File: notes.md\n+New notes\n*** End Patch',
      ),
      {
        files: ['sync.rs', 'notes.md'],
        identifiers: ['run_sync', 'retry_once', 'retry_with_backoff'],
        'edit-texts': ['let mut retries = 0;'],
      },
    ],
    [
      'a version number and a URL are not file names',
      call('Bash', { command: 'curl https://example.com/x.json -o 1.5' }),
      { commands: ['curl https://example.com/x.json -o 1.5'] },
    ],
    [
      "Gemini CLI's replace: as Edit",
      call('replace', {
        file_path: '/repo/a.py',
        old_string: 'def load_config():',
        new_string: 'def load_config(p):',
      }),
      { files: ['a.py'], identifiers: ['load_config'], 'edit-texts': ['def load_config():'] },
    ],
    [
      "opencode's edit: filePath, oldString, newString",
      call('edit', { filePath: '/repo/a.ts', oldString: 'return countTokens(x);', newString: 'return 0;' }),
      { files: ['a.ts'], identifiers: ['countTokens'], 'edit-texts': ['return countTokens(x);'] },
    ],
    [
      "Codex's exec: the calls in its script",
      call('exec', {
        input:
          'await tools.exec_command({cmd: "rg -n load_config src"});\nawait tools.apply_patch("*** Begin Patch\\n*** Update File: src/a.py\\n@@\\n-x = parseArgs()\\n+x = 1\\n*** End Patch");',
      }),
      {
        files: ['a.py'],
        identifiers: ['load_config', 'parseArgs'],
        'edit-texts': ['x = parseArgs()'],
        commands: ['rg -n load_config src'],
      },
    ],
    ['TodoWrite: nothing', call('TodoWrite', { todos: [{ content: 'Fix parseArgs' }] }), {}],
  ])('%s', (_, block, expected) => {
    expect(toolCallNeeds(block)).toEqual({ ...none, ...expected });
  });
});

describe('isCodeShaped', () => {
  it.each<[string, boolean, boolean]>([
    ['camelCase', false, true],
    ['PascalCase', false, true],
    ['HTTPServer', false, true],
    ['snake_case', false, true],
    ['MAX_TOKENS', false, true],
    ['compute', true, true],
    ['compute', false, false],
    ['Error', false, false],
    ['URL', false, false],
    ['while', true, false],
    ['_x', false, false],
  ])('%s (followed by paren: %s) → %s', (word, paren, expected) => {
    expect(isCodeShaped(word, paren)).toBe(expected);
  });
});

describe('grepPatterns', () => {
  it.each<[string, string[]]>([
    ['grep -rn "def foo" src', ['def foo']],
    ['rg -e needle -g "*.py"', ['needle']],
    ['cat a.py | grep -C 2 Token', ['Token']],
    ['git grep -n parseArgs', ['parseArgs']],
    ['ls -la', []],
  ])('%s', (command, expected) => {
    expect(grepPatterns(command)).toEqual(expected);
  });
});
