import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { extractiveSummary } from './extractive-summary.js';
import { agentFindings, currentWork } from './findings.js';
import { parseSummarySections } from './summary-format.js';

const history: Message[] = [
  { role: 'user', content: 'The token counts of streamed transcripts are too high. Find out why.' },
  { role: 'assistant', content: 'Let me look at the transcript parser.' },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 't1',
        name: 'Read',
        input: { file_path: '/repo/cmd/transcript.go' },
      },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'package cli' }] },
  {
    role: 'assistant',
    content:
      'Found it: `CalculateTokenUsage()` in transcript.go counts every streamed chunk, because the message id is never compared. I will dedupe by `message.id` instead of summing each line.',
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 't2',
        name: 'Edit',
        input: {
          file_path: '/repo/cmd/transcript.go',
          old_string: 'sum += u',
          new_string: 'if seen[id] {\n\tcontinue\n}',
        },
      },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'ok' }] },
  { role: 'assistant', content: 'Perfect!' },
  { role: 'user', content: 'Good. Now add a test for the dedupe.' },
];

describe("the agent's findings", () => {
  it('are its sentences that name code and causes, not its narration', () => {
    const findings = agentFindings(history, 1000);
    expect(findings).toEqual([
      '- Found it: `CalculateTokenUsage()` in transcript.go counts every streamed chunk, because the message id is never compared.',
      '- I will dedupe by `message.id` instead of summing each line.',
    ]);
  });

  it('are not replies: a conclusion that names no code needs a whole sentence', () => {
    const replies: Message[] = [
      { role: 'assistant', content: "Confirmed — you're right. An integration test failed." },
      {
        role: 'assistant',
        content: 'We check each commit for content but carry files forward as a whole, which is wrong.',
      },
    ];
    expect(agentFindings(replies, 1000)).toEqual([
      '- We check each commit for content but carry files forward as a whole, which is wrong.',
    ]);
  });

  it('keep the best within the budget, in the order they were written', () => {
    const [only, ...rest] = agentFindings(history, 40);
    expect(rest).toEqual([]);
    expect(only).toContain('CalculateTokenUsage()');
    expect(agentFindings(history, 10)).toEqual([]);
  });
  it('are sentences about code, not labels or lists of names', () => {
    const written: Message[] = [
      {
        role: 'assistant',
        content: [
          'Committed as `805f7b2c`.',
          '- `up/k`, `down/j` - Navigate',
          'Task 4: checkpoint.go, committed.go',
          '`hasAnyLiveSession` found `test.json` and returned true, blocking the auto-apply.',
        ].join('\n'),
      },
    ];
    expect(agentFindings(written, 1000)).toEqual([
      '- `hasAnyLiveSession` found `test.json` and returned true, blocking the auto-apply.',
    ]);
  });

  it('say a thing once: of two sentences that say it, the later is kept', () => {
    const said: Message[] = [
      {
        role: 'assistant',
        content: 'Missing nil check: `ReadCommitted` can return `(nil, nil)` and the code panics.',
      },
      {
        role: 'assistant',
        content: 'Nil check added: `ReadCommitted` can return `(nil, nil)`, the code no longer panics.',
      },
    ];
    expect(agentFindings(said, 1000)).toEqual([
      '- Nil check added: `ReadCommitted` can return `(nil, nil)`, the code no longer panics.',
    ]);
  });

  it('put the latest conclusion before an older sentence that only names more code', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content:
          'The flags are `verbose`, `dryRun`, `maxDepth`, `outputDir`, `logLevel`, `retryCount` and `timeoutMs` in config.ts.',
      },
      { role: 'assistant', content: 'Read the options.' },
      { role: 'assistant', content: 'So `loadConfig()` must read `maxDepth` before the defaults apply.' },
    ];
    expect(agentFindings(messages, 25)).toEqual([
      '- So `loadConfig()` must read `maxDepth` before the defaults apply.',
    ]);
  });

  it('are prose: not fenced code, drawings, tables, headings or a line that introduces a list', () => {
    const written: Message[] = [
      {
        role: 'assistant',
        content: [
          '## Root cause in `parseUsage()`',
          '**Both fixes (2 changes):**',
          '- The `parseUsage()` loop sums every chunk because `seenIds` is reset per line.',
          '```go',
          'usage := parseUsage(lines) // returns the wrong total',
          '```',
          '│ ├─ parseUsage() → sumChunks()',
          '| `parseUsage()` | wrong total |',
          '+--------------+-------------+',
          '+ So `sumChunks()` must skip a chunk whose id it has seen.',
        ].join('\n'),
      },
    ];
    expect(agentFindings(written, 1000)).toEqual([
      '- The `parseUsage()` loop sums every chunk because `seenIds` is reset per line.',
      '- So `sumChunks()` must skip a chunk whose id it has seen.',
    ]);
  });
});

describe('the current work', () => {
  it('names an edit that reads like a later one once, at its latest place', () => {
    const edit = (id: string, text: string): Message => ({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id,
          name: 'Edit',
          input: { file_path: '/r/a.go', old_string: 'x', new_string: text },
        },
      ],
    });
    const edits = [edit('e1', '// check'), edit('e2', 'import ('), edit('e3', '// check')];
    expect(currentWork(edits, undefined)).toEqual(['- Edit: a.go: import (', '- Last edit: a.go: // check']);
  });

  it.each([
    [
      'what it added, in the function it changed',
      {
        file_path: '/r/parse.go',
        old_string: 'func parse(s string) int {\n\treturn 0',
        new_string: 'func parse(s string) int {\n\tif s == "" {\n\t\treturn -1\n\t}\n\treturn 0',
      },
      '- Last edit: parse.go: func parse(s string) int { … if s == "" {',
    ],
    [
      'what it added after the line it anchored on',
      {
        file_path: '/r/notes.md',
        old_string: '## Open',
        new_string: '## Open\n- the retry loop never backs off',
      },
      '- Last edit: notes.md: ## Open … - the retry loop never backs off',
    ],
    [
      'what it removed',
      { file_path: '/r/notes.md', old_string: 'keep\ndrop this line', new_string: 'keep' },
      '- Last edit: notes.md: keep … removed drop this line',
    ],
  ])('names what an edit did: %s', (_, input, line) => {
    const edit: Message = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'e1', name: 'Edit', input }],
    };
    expect(currentWork([edit], undefined)).toEqual([line]);
  });

  it('names the last edit and the latest request', () => {
    expect(currentWork(history, 'Good. Now add a test for the dedupe.')).toEqual([
      '- Last edit: transcript.go: if seen[id] {',
      '- Latest request: Good. Now add a test for the dedupe.',
    ]);
  });
});

describe('the offline summary', () => {
  it.each([false, true])(
    'never leaves the findings and the current state empty when the history has them (ledger beside it: %s)',
    (withLedger) => {
      const ledger = withLedger ? '<session_ledger>\n</session_ledger>' : undefined;
      const sections = parseSummarySections(extractiveSummary(history, 2000, undefined, { ledger }));
      expect(sections.get('Key findings and decisions')!.join('\n')).toContain('`CalculateTokenUsage()`');
      const state = sections.get('Current state')!.join('\n');
      expect(state).toContain('- Last edit: transcript.go: if seen[id] {');
      expect(state).toContain('- Latest request: Good. Now add a test for the dedupe.');
    },
  );

  it('carries more of the agent’s conclusions beside the ledger as the history it replaces grows', () => {
    const conclusions = Array.from({ length: 12 }, (_, index) => ({
      role: 'assistant' as const,
      content: `Found it: \`handler${index}()\` skips check${index} because cache${index} keeps stale${index} entry${index} data${index}.`,
    }));
    const output = (id: string): Message[] => [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/r/${id}.go` } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: 'var x = 1 // padding\n'.repeat(20_000) }],
      },
    ];
    const findings = (messages: Message[]) =>
      parseSummarySections(
        extractiveSummary(messages, 2000, undefined, { ledger: '<session_ledger>\n</session_ledger>' }),
      ).get('Key findings and decisions')!;
    // A long history: every conclusion. A short one: the newest within the floor.
    expect(
      findings([{ role: 'user', content: 'Why is the last chunk lost?' }, ...output('t1'), ...conclusions]),
    ).toHaveLength(12);
    const short = findings([{ role: 'user', content: 'Why is the last chunk lost?' }, ...conclusions]);
    expect(short.length).toBeGreaterThan(0);
    expect(short.length).toBeLessThan(12);
    expect(short.at(-1)).toContain('handler11()');
  });

  it('names a long latest request the ledger beside it quotes whole, and writes any other', () => {
    const text = '<pr_description>\nDates ignore TIME_ZONE on SQLite.\n</pr_description>';
    const history: Message[] = [
      { role: 'user', content: text },
      { role: 'assistant', content: 'Reading the backend first.' },
    ];
    const state = (ledger: string | undefined, messages = history) =>
      parseSummarySections(extractiveSummary(messages, 2000, undefined, { ledger }))
        .get('Current state')!
        .join('\n');
    const quoted = state(
      `<session_ledger>\n## Messages the user typed (verbatim)\n- t1: ${text}\n</session_ledger>`,
    );
    expect(quoted).toContain('- Latest request: (quoted whole in the session ledger)');
    expect(quoted).not.toContain('TIME_ZONE');
    // A ledger that only points at the request repeated after it, or cuts it, or none: it is written.
    const written = '- Latest request: <pr_description> Dates ignore TIME_ZONE on SQLite.';
    expect(
      state('<session_ledger>\n- t1: (the latest request, repeated verbatim below)\n</session_ledger>'),
    ).toContain(written);
    expect(state('<session_ledger>\n- t1: <pr_description> Dates ignore…\n</session_ledger>')).toContain(
      written,
    );
    expect(state(undefined)).toContain(written);
    // A short request costs less than the name: it is written.
    const short: Message[] = [{ role: 'user', content: 'yes, do 1' }];
    expect(state('<session_ledger>\n- t3: yes, do 1\n</session_ledger>', short)).toContain(
      '- Latest request: yes, do 1',
    );
  });

  it("names the request the user made, not Claude Code's note that the user interrupted a turn", () => {
    const messages: Message[] = [
      { role: 'user', content: 'Check the line counts of the last commit.' },
      { role: 'assistant', content: 'Counting the lines now.' },
      { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] },
    ];
    const state = parseSummarySections(extractiveSummary(messages)).get('Current state')!.join('\n');
    expect(state).toContain('- Latest request: Check the line counts of the last commit.');
    expect(state).not.toContain('interrupted');
  });

  it('writes the current state again instead of keeping an earlier summary’s', () => {
    const earlier = extractiveSummary(history);
    const merged = extractiveSummary([
      { role: 'user', content: `<context_summary>\n${earlier}\n</context_summary>` },
      { role: 'assistant', content: 'Understood. Continuing from the summary.' },
      { role: 'user', content: 'Also update the changelog.' },
    ]);
    const sections = parseSummarySections(merged);
    expect(sections.get('Current state')!.join('\n')).not.toContain('Last edit');
    expect(sections.get('Current state')!.join('\n')).toContain('Also update the changelog.');
    expect(sections.get('Key findings and decisions')!.join('\n')).toContain('CalculateTokenUsage');
  });

  it('reads a sentence of a long run of dotted or dashed words in one pass', () => {
    // Every other character of `a-b-c-…` is a word boundary, where a path or a file name was tried
    // to the run's end: 100 KB took 65 s, this (400 KB) some twenty minutes.
    for (const run of ['a-'.repeat(200_000), 'a.'.repeat(200_000)]) {
      const findings = agentFindings(
        [
          { role: 'assistant', content: `The dump fails because ${run}` },
          {
            role: 'assistant',
            content: 'Found it: `parseHeader()` drops the last line because of an off-by-one.',
          },
        ],
        600,
      );
      expect(findings.at(-1)).toContain('parseHeader()');
    }
  });
});
