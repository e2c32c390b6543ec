import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { collectMaskTargets, maskToolResults } from './mask.js';
import { contextFor, counter, rule } from './planner.test-utils.js';

/** One call and its result, then a later turn so the result can be masked. */
function session(name: string, input: Record<string, unknown>, output: string): Message[] {
  return [
    { role: 'user', content: 'Stage the docs.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: output }] },
  ];
}

function placeholderOf(messages: Message[]): string {
  const context = contextFor(messages);
  const targets = collectMaskTargets(messages, counter, rule, context);
  const masked = maskToolResults(messages, targets, context).messages[2]!.content;
  return String((masked as { content: unknown }[])[0]!.content);
}

describe('maskToolResults', () => {
  it("quotes what a Codex command printed, not the harness's header that repeats the command", () => {
    const output = [
      "Command: /bin/zsh -lc 'git add docs README.md'",
      'Chunk ID: 10d391',
      'Wall time: 0.0000 seconds',
      'Process exited with code 1',
      'Original token count: 50',
      'Output:',
      'The following paths are ignored by one of your .gitignore files:',
      'docs',
      'hint: Use -f if you really want to add them.',
      ...Array.from({ length: 30 }, (_, line) => `hint: line ${line} of advice on ignored paths`),
    ].join('\n');
    const placeholder = placeholderOf(session('exec_command', { cmd: 'git add docs README.md' }, output));
    expect(placeholder).toMatch(
      /^\[Previous: used exec_command\(git add docs README\.md\) → exit 1, .*; "The following paths are ignored by one of your \.gitignore files:"; recall r1\]$/,
    );
  });
});
