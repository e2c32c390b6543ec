import { describe, expect, it } from 'vitest';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { planMicro } from './micro.js';
import { inputDetails, placeholderDetails } from './placeholder-details.js';
import { contextFor } from './planner.test-utils.js';

const goFile = [
  'package store',
  '',
  'const maxEntries = 50',
  '',
  'type Store struct {',
  '\tentries map[string]string',
  '}',
  '',
  'func NewStore() *Store {',
  '\treturn &Store{entries: map[string]string{}}',
  '}',
  '',
  'func (s *Store) Put(key, value string) {',
  '\ts.entries[key] = value',
  '}',
].join('\n');
const numbered = goFile
  .split('\n')
  .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
  .join('\n');

const read = (id: string, path: string): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name: 'Read',
  input: { file_path: path },
});
const result = (id: string, content: string, isError?: boolean): ToolResultBlock => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
  ...(isError ? { is_error: true } : {}),
});

describe('placeholderDetails', () => {
  it('names what a read file defines, functions and types before its constants', () => {
    expect(placeholderDetails(read('r1', 'store/store.go'), result('r1', numbered))).toBe(
      'defines Store, NewStore, Put, maxEntries',
    );
  });

  it('names the files a search found, each once', () => {
    const grep: ToolUseBlock = { type: 'tool_use', id: 'g1', name: 'Grep', input: { pattern: 'NewStore' } };
    const hits = [
      '/repo/store/store.go:9:func NewStore() *Store {',
      '/repo/cmd/main.go:14:\ts := store.NewStore()',
      '/repo/store/store.go:30:// NewStore again',
    ];
    expect(placeholderDetails(grep, result('g1', hits.join('\n')))).toBe('found in store.go, main.go');
  });

  it("names the files and the code a subagent's report mentions, files first", () => {
    const task: ToolUseBlock = {
      type: 'tool_use',
      id: 't1',
      name: 'Task',
      input: { description: 'Explore the commit hooks', prompt: 'Find where sessions are condensed.' },
    };
    const report = [
      '`PostCommit()` in manual_commit_hooks.go calls `condenseSession()` for each session with new content.',
      'condenseSession reads the transcript through `SliceFromLine` (transcript/parse.go).',
      'Nothing in manual_commit_hooks locks the state file.',
      "agentId: a6810fb (for resuming to continue this agent's work if needed)",
      '<usage>total_tokens: 41977\ntool_uses: 12\nduration_ms: 38521</usage>',
    ].join('\n');
    expect(placeholderDetails(task, result('t1', report))).toBe(
      'names manual_commit_hooks.go, parse.go, condenseSession, PostCommit, SliceFromLine',
    );
  });

  it("reads a shell search's output inside mini-swe-agent's envelope", () => {
    const grep: ToolUseBlock = {
      type: 'tool_use',
      id: 'g2',
      name: 'bash',
      input: { command: 'grep -rn NewStore .' },
    };
    const output =
      '<returncode>0</returncode>\n<output>\n./store/store.go:9:func NewStore() *Store {\n</output>';
    expect(placeholderDetails(grep, result('g2', output))).toBe('found in store.go');
    // grep prints no path for the one file it searched: the command names it.
    const one: ToolUseBlock = { ...grep, id: 'g3', input: { command: 'grep -n NewStore store/store.go' } };
    const lines = '<returncode>0</returncode>\n<output>\n9:func NewStore() *Store {\n</output>';
    expect(placeholderDetails(one, result('g3', lines))).toBe('found in store.go');
  });

  it('says nothing for a failed read, a file of no known language or a command that only runs', () => {
    expect(
      placeholderDetails(read('r1', 'store/store.go'), result('r1', 'File does not exist.', true)),
    ).toBeUndefined();
    expect(placeholderDetails(read('r1', 'notes.txt'), result('r1', numbered))).toBeUndefined();
    const bash: ToolUseBlock = {
      type: 'tool_use',
      id: 'b1',
      name: 'Bash',
      input: { command: 'go test ./...' },
    };
    expect(placeholderDetails(bash, result('b1', goFile))).toBeUndefined();
  });

  it('keeps to one line on a large file and counts the names it left out', () => {
    const big = Array.from({ length: 200 }, (_, index) => `func Handler${index}() {}`).join('\n');
    const details = placeholderDetails(
      { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'cat server/handlers.go' } },
      result('c1', big),
    );
    const [names, more] = (details ?? '').replace(/^defines /, '').split(' (+');
    expect(names?.length).toBeLessThanOrEqual(160);
    expect((names?.split(', ').length ?? 0) + Number.parseInt(more ?? '0', 10)).toBe(200);
  });
});

describe('inputDetails', () => {
  it('names what the code of a write or an edit defines, and nothing for other inputs', () => {
    const write: ToolUseBlock = {
      type: 'tool_use',
      id: 'w1',
      name: 'Write',
      input: { file_path: '/repo/store/store.go', content: goFile },
    };
    expect(inputDetails(write, goFile)).toBe('defines Store, NewStore, Put, maxEntries');
    const bash: ToolUseBlock = { type: 'tool_use', id: 'b1', name: 'Bash', input: { command: goFile } };
    expect(inputDetails(bash, goFile)).toBeUndefined();
    expect(inputDetails(write, { nested: true })).toBeUndefined();
  });
});

describe('a masked read', () => {
  it('keeps the names its file defines in the placeholder, so the agent still sees what the file holds', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Add a Delete method to the store.' },
      { role: 'assistant', content: [read('r1', '/repo/store/store.go')] },
      { role: 'user', content: [result('r1', numbered)] },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Now the tests.' }, read('r2', '/repo/store/store_test.go')],
      },
      { role: 'user', content: [result('r2', numbered)] },
    ];
    const context = contextFor(messages);
    const plan = planMicro(
      messages,
      context.index,
      {
        keepTurns: 1,
        cacheAware: false,
        clearAtLeast: 0,
        supersede: true,
        keepReads: { turns: 0, maxTokens: 0 },
      },
      context,
    );
    const masked = plan?.messages[2]?.content as ToolResultBlock[] | undefined;
    expect(masked?.[0]?.content).toMatch(
      /^\[Previous: used Read\(\/repo\/store\/store\.go\) → 15 lines, \d+ tokens; defines Store, NewStore, Put, maxEntries; recall r1\]$/,
    );
  });
});
