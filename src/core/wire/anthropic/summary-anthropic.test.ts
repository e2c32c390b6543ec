import { describe, expect, it } from 'vitest';
import type { Message } from '../../model/messages.js';
import { anthropicSummaryCall } from './summary-anthropic.js';

describe('anthropicSummaryCall', () => {
  const environment = { role: 'system', content: '# Environment' };
  const later = { role: 'system', content: 'The user has not heard from you.' };
  const task: Message = { role: 'user', content: 'Fix the bug.' };
  const step = (id: string): Message[] => [
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: '', signature: `sig-${id}` },
        { type: 'tool_use', id, name: 'Read', input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x' }] },
  ];
  const [a1, r1] = step('t1');
  const [a2, r2] = step('t2');
  // The agent's request: its system messages in place; the turn the compaction keeps is a2, r2.
  const body = {
    model: 'claude-test',
    max_tokens: 32_000,
    thinking: { type: 'adaptive' },
    system: 'You are a coding agent.',
    messages: [task, environment, a1, r1, later, a2, r2],
  };
  const instructions: Message = {
    role: 'user',
    content: [...(r1!.content as object[]), { type: 'text', text: 'Write a summary.' }],
  } as Message;

  it('sends the agent’s request back with the history the summary covers: system prompt, system messages and thinking as they were', () => {
    const call = anthropicSummaryCall(new URL('http://127.0.0.1/v1/messages'), body, {
      system: 'You are a coding agent.\n# Environment\nThe user has not heard from you.',
      messages: [task, a1!, instructions],
      maxOutputTokens: 1000,
    });
    expect(call.body.system).toBe('You are a coding agent.');
    expect(call.body.thinking).toEqual({ type: 'adaptive' });
    expect(call.body.max_tokens).toBe(32_000);
    // `later` stood before the kept turn, which the agent's previous request did not have yet; the
    // end of that request (the block before the instructions) is marked for the cache.
    const [result, text] = instructions.content as object[];
    expect(call.body.messages).toEqual([
      task,
      environment,
      a1,
      { role: 'user', content: [{ ...result, cache_control: { type: 'ephemeral' } }, text] },
    ]);
  });

  it('adds no cache breakpoint to a request that has its four', () => {
    const marked = { type: 'text', text: 'tools', cache_control: { type: 'ephemeral' } };
    const call = anthropicSummaryCall(
      new URL('http://127.0.0.1/v1/messages'),
      { ...body, system: [marked, marked, marked, marked] },
      { messages: [task, a1!, instructions], maxOutputTokens: 1000 },
    );
    expect((call.body.messages as unknown[]).at(-1)).toEqual(instructions);
  });
});
