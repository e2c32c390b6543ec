import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';

/** A Chat Completions conversation of named users and 30 file reads of about 1,000 tokens each. */
function namedConversation(): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [{ role: 'user', name: 'alice', content: 'Read the files.' }];
  for (let index = 0; index < 30; index++) {
    messages.push({
      role: 'assistant',
      name: 'coder',
      content: null,
      tool_calls: [
        {
          id: `c${index}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"f${index}.ts"}` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: `c${index}`,
      content: `export const v${index} = 1;\n`.repeat(200),
    });
    if (index === 20) messages.push({ role: 'user', name: 'bob', content: 'Keep going.' });
  }
  return messages;
}

describe('the chat completions route', () => {
  const start = useProxyHarness();

  it.each([
    ['nothing is compacted', 200_000, false],
    ['older results are compacted', 48_000, true],
  ])('sends each message it keeps with its name when %s', async (_name, contextWindow, compacted) => {
    const { proxy, server } = await start(() => 'ok', { contextWindow });
    const messages = namedConversation();
    const answer = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer key' },
      body: JSON.stringify({ model: 'gpt-test', max_completion_tokens: 50, messages }),
    });
    expect(answer.status).toBe(200);
    await answer.text();
    const sent = server.requests.at(-1)?.body.messages as Record<string, unknown>[];
    expect(JSON.stringify(sent).includes('[Previous: used read_file')).toBe(compacted);
    const named = (name: string) =>
      sent.filter((message) => message.name === name).map(({ name: _, ...rest }) => rest);
    expect(named('alice')).toEqual([{ role: 'user', content: 'Read the files.' }]);
    expect(named('bob')).toEqual([{ role: 'user', content: 'Keep going.' }]);
    // Every assistant message it sent is one the client wrote, name and all.
    const assistants = sent.filter((message) => message.role === 'assistant');
    expect(assistants).toHaveLength(30);
    for (const message of assistants) expect(message.name).toBe('coder');
  });
});
