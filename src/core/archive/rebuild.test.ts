import { describe, expect, it } from 'vitest';
import type { Message, ToolUseBlock } from '../model/messages.js';
import type { ArchiveItem } from './archive-store.js';
import { rebuildConversation } from './rebuild.js';

const call = (input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id: 'call_0',
  name: 'write_file',
  input,
});

const inputItem = (id: string, input: Record<string, unknown>): ArchiveItem => ({
  id,
  sessionId: 's',
  kind: 'tool-input',
  toolUseId: 'call_0',
  createdAt: 0,
  block: call(input),
});

const answer = (text: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 'call_0', content: text }],
});

describe('rebuildConversation under a reused tool call id', () => {
  it('gives a placeholder without an id the item that no placeholder names by id', () => {
    // The first input was elided before the session showed a reused id (no id written); the
    // second after (its id written, though the model has no recall tool).
    const items = [inputItem('r2', { content: 'first body' }), inputItem('r3', { content: 'second body' })];
    const compacted: Message[] = [
      { role: 'assistant', content: [call({ content: '[elided: 1 lines, 400 tokens]' })] },
      answer('ok'),
      { role: 'assistant', content: [call({ content: '[elided: 1 lines, 400 tokens; archived r3]' })] },
      answer('ok'),
    ];
    expect(rebuildConversation(compacted, items)).toEqual([
      { role: 'assistant', content: [call({ content: 'first body' })] },
      answer('ok'),
      { role: 'assistant', content: [call({ content: 'second body' })] },
      answer('ok'),
    ]);
  });

  it('gives placeholders without an id that read the same the items archived with that text, in order', () => {
    // Recall off, and the id seen reused only after a restart: the first read sits in a summary,
    // the second is masked later under the same words.
    const said = '[Previous: used read_file(w.ts) → 1 lines, 600 tokens]';
    const read = (content: string): Message[] => [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_0', name: 'read_file', input: { path: 'w.ts' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content }] },
    ];
    const summary = '<context_summary>\n- read w.ts\n</context_summary>';
    const resultItem = (id: string, content: string): ArchiveItem => ({
      id,
      sessionId: 's',
      kind: 'tool-result',
      toolUseId: 'call_0',
      createdAt: 0,
      block: { type: 'tool_result', tool_use_id: 'call_0', content },
      placeholder: said,
    });
    const items: ArchiveItem[] = [
      resultItem('r1', 'a'.repeat(3000)),
      {
        id: 'r2',
        sessionId: 's',
        kind: 'messages',
        createdAt: 0,
        messages: read(said),
        placeholder: summary,
      },
      resultItem('r3', 'b'.repeat(3000)),
    ];
    const compacted: Message[] = [
      { role: 'user', content: [{ type: 'text', text: summary }] },
      { role: 'assistant', content: 'Understood.' },
      { role: 'user', content: 'Go on.' },
      ...read(said),
    ];
    expect(rebuildConversation(compacted, items)).toEqual([
      ...read('a'.repeat(3000)),
      { role: 'user', content: 'Go on.' },
      ...read('b'.repeat(3000)),
    ]);
  });
});
