import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import {
  fromOpenAIMessages,
  parseToolArguments,
  stringifyToolInput,
  TOOL_ERROR_PREFIX,
  toOpenAIMessages,
} from './openai-format.js';
import type { OpenAIChatMessage } from './openai-types.js';

const demonstrations = join(
  import.meta.dirname,
  '../../../../shared/data/trajectories/swe-agent-demonstrations',
);

function trajFiles(directory: string): string[] {
  const files: string[] = [];
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) pending.push(path);
      else if (name.endsWith('.traj')) files.push(path);
    }
  }
  return files.sort();
}

/** SWE-agent's history is OpenAI-shaped but names the answered call `tool_call_ids` (an array). */
function historyToOpenAI(history: Array<Record<string, unknown>>): OpenAIChatMessage[] {
  return history.map((entry) => {
    const content = entry.content as string;
    switch (entry.role) {
      case 'tool':
        return { role: 'tool', tool_call_id: (entry.tool_call_ids as string[])[0]!, content };
      case 'assistant': {
        const message: OpenAIChatMessage = { role: 'assistant', content };
        if (Array.isArray(entry.tool_calls)) message.tool_calls = entry.tool_calls as never;
        return message;
      }
      default:
        return { role: entry.role as 'system' | 'user', content };
    }
  });
}

function normalizeArguments(messages: OpenAIChatMessage[]): OpenAIChatMessage[] {
  return messages.map((message) =>
    message.role === 'assistant' && message.tool_calls
      ? {
          ...message,
          tool_calls: message.tool_calls.map((call) => ({
            ...call,
            function: { ...call.function, arguments: JSON.stringify(JSON.parse(call.function.arguments)) },
          })),
        }
      : message,
  );
}

describe('fromOpenAIMessages', () => {
  it('converts system, tool calls, tool results and images', () => {
    const result = fromOpenAIMessages([
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is here?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me look.',
        reasoning_content: 'The user wants a listing.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          { id: 'call_2', type: 'function', function: { name: 'bash', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'call_2', content: `${TOOL_ERROR_PREFIX}bad arguments` },
      { role: 'user', content: 'Thanks' },
    ]);
    expect(result).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": [
              {
                "text": "What is here?",
                "type": "text",
              },
              {
                "source": {
                  "data": "iVBORw0K",
                  "media_type": "image/png",
                  "type": "base64",
                },
                "type": "image",
              },
              {
                "source": {
                  "type": "url",
                  "url": "https://example.com/cat.png",
                },
                "type": "image",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "signature": "",
                "thinking": "The user wants a listing.",
                "type": "thinking",
              },
              {
                "text": "Let me look.",
                "type": "text",
              },
              {
                "id": "call_1",
                "input": {
                  "command": "ls",
                },
                "name": "bash",
                "type": "tool_use",
              },
              {
                "id": "call_2",
                "input": {
                  "_raw": "not json",
                },
                "name": "bash",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "a.txt",
                "tool_use_id": "call_1",
                "type": "tool_result",
              },
              {
                "content": "bad arguments",
                "is_error": true,
                "tool_use_id": "call_2",
                "type": "tool_result",
              },
              {
                "text": "Thanks",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "system": "Be brief.",
        "systemRole": "developer",
      }
    `);
  });

  it('collects several system messages into text blocks', () => {
    const result = fromOpenAIMessages([
      { role: 'system', content: 'One.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: [{ type: 'text', text: 'Two.' }] },
    ]);
    expect(result.system).toEqual([
      { type: 'text', text: 'One.' },
      { type: 'text', text: 'Two.' },
    ]);
    expect(result.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('keeps a refusal as assistant text and drops empty content next to tool calls', () => {
    const result = fromOpenAIMessages([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'noop', arguments: '' } }],
      },
    ]);
    expect(result.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'I cannot help with that.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_9', name: 'noop', input: {} }] },
    ]);
  });
});

describe('toOpenAIMessages', () => {
  it('converts tool_use, tool_result (with is_error), thinking and images', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Need the file.', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { _raw: '{broken' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'export {}' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'invalid JSON', is_error: true },
          { type: 'text', text: 'Go on.' },
        ],
      },
    ];
    expect(
      toOpenAIMessages({ system: 'Be brief.', messages }, { systemRole: 'developer' }),
    ).toMatchInlineSnapshot(`
      [
        {
          "content": "Be brief.",
          "role": "developer",
        },
        {
          "content": [
            {
              "image_url": {
                "url": "data:image/jpeg;base64,AAAA",
              },
              "type": "image_url",
            },
          ],
          "role": "user",
        },
        {
          "content": "Reading it.",
          "reasoning_content": "Need the file.",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"path":"a.ts"}",
                "name": "read_file",
              },
              "id": "toolu_1",
              "type": "function",
            },
            {
              "function": {
                "arguments": "{broken",
                "name": "bash",
              },
              "id": "toolu_2",
              "type": "function",
            },
          ],
        },
        {
          "content": [
            {
              "text": "export {}",
              "type": "text",
            },
          ],
          "role": "tool",
          "tool_call_id": "toolu_1",
        },
        {
          "content": "[tool error] invalid JSON",
          "role": "tool",
          "tool_call_id": "toolu_2",
        },
        {
          "content": "Go on.",
          "role": "user",
        },
      ]
    `);
  });

  it('writes an assistant message with only tool calls with null content', () => {
    const [message] = toOpenAIMessages({
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] }],
    });
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
    });
  });
});

describe('round trips', () => {
  it('canonical → OpenAI → canonical keeps everything OpenAI can express', () => {
    const messages: Message[] = [
      { role: 'user', content: 'List files.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Sure.' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'bash',
            input: { command: 'ls', nested: { deep: [1, 2] } },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'exit 2', is_error: true },
          { type: 'text', text: 'Hm.' },
        ],
      },
      { role: 'assistant', content: 'Done.' },
    ];
    const back = fromOpenAIMessages(toOpenAIMessages({ system: 'S', messages }));
    expect(back).toEqual({ system: 'S', systemRole: 'system', messages });
  });

  it.each([['{"command":"ls"}'], ['{}'], ['not json at all'], ['[1,2]'], ['"a string"']])(
    'tool arguments %s survive parse and stringify',
    (argumentsText) => {
      expect(stringifyToolInput(parseToolArguments(argumentsText))).toBe(argumentsText);
    },
  );

  it('OpenAI → canonical → OpenAI is lossless on generated conversations with tool calls', () => {
    const text = fc.string({ minLength: 1, maxLength: 20 });
    const userMessage = fc.oneof(
      text.map((content): OpenAIChatMessage => ({ role: 'user', content })),
      fc
        .array(
          fc.oneof(
            text.map((value) => ({ type: 'text' as const, text: value })),
            fc.constantFrom('data:image/png;base64,iVBORw0K', 'https://example.com/a.png').map((url) => ({
              type: 'image_url' as const,
              image_url: { url },
            })),
          ),
          { minLength: 1, maxLength: 3 },
        )
        .map((content): OpenAIChatMessage => ({ role: 'user', content })),
    );
    const toolTurn = fc
      .record({
        content: fc.option(text, { nil: null }),
        calls: fc.array(
          fc.record({
            name: fc.constantFrom('bash', 'read_file', 'edit'),
            input: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
            output: text,
          }),
          { minLength: 1, maxLength: 3 },
        ),
      })
      .map(({ content, calls }) => ({ content, calls }));
    const turn = fc.oneof(
      text.map((content) => ({ kind: 'text' as const, content })),
      toolTurn.map((value) => ({ kind: 'tools' as const, ...value })),
    );
    const conversation = fc.record({
      system: fc.option(
        fc.record({ role: fc.constantFrom('system' as const, 'developer' as const), content: text }),
      ),
      turns: fc.array(fc.tuple(userMessage, turn), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(conversation, ({ system, turns }) => {
        const messages: OpenAIChatMessage[] = system ? [system] : [];
        let callNumber = 0;
        for (const [user, reply] of turns) {
          messages.push(user);
          if (reply.kind === 'text') {
            messages.push({ role: 'assistant', content: reply.content });
            continue;
          }
          const calls = reply.calls.map((call) => ({ ...call, id: `call_${++callNumber}` }));
          messages.push({
            role: 'assistant',
            content: reply.content,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: JSON.stringify(call.input) },
            })),
          });
          for (const call of calls)
            messages.push({ role: 'tool', tool_call_id: call.id, content: call.output });
        }
        const canonical = fromOpenAIMessages(messages);
        const back = toOpenAIMessages(
          canonical,
          canonical.systemRole ? { systemRole: canonical.systemRole } : {},
        );
        // Documented loss: one text part right after tool messages comes back as a plain string.
        const expected = messages.map((message, index) => {
          const previous = messages[index - 1];
          const [part, ...rest] = Array.isArray(message.content) ? message.content : [];
          const single = message.role === 'user' && part?.type === 'text' && rest.length === 0;
          return single && previous?.role === 'tool'
            ? { role: 'user' as const, content: String(part.text) }
            : message;
        });
        expect(normalizeArguments(back)).toEqual(normalizeArguments(expected));
      }),
      { seed: 20261130, numRuns: 500 },
    );
  });

  const present = existsSync(demonstrations);
  if (!present) {
    it.skip(`SWE-agent function-calling files (skipped: ${demonstrations} is absent)`, () => {});
    return;
  }
  const functionCalling = trajFiles(demonstrations).filter((file) => {
    const history = JSON.parse(readFileSync(file, 'utf8')).history as Array<Record<string, unknown>>;
    return history.some((entry) => Array.isArray(entry.tool_calls));
  });

  it('finds the function-calling files', () => {
    // The folder's README says 6; five files actually carry `tool_calls` in their history.
    expect(functionCalling.length).toBe(5);
  });

  it.each(functionCalling.map((file) => [relative(demonstrations, file), file]))(
    'OpenAI → canonical → OpenAI is lossless on %s',
    (_name, file) => {
      const history = JSON.parse(readFileSync(file!, 'utf8')).history as Array<Record<string, unknown>>;
      const openAIMessages = historyToOpenAI(history);
      const canonical = fromOpenAIMessages(openAIMessages);
      expect(canonical.messages.some((message) => JSON.stringify(message).includes('"tool_use"'))).toBe(true);
      const back = toOpenAIMessages(
        canonical,
        canonical.systemRole ? { systemRole: canonical.systemRole } : {},
      );
      // Arguments come back as the same JSON value; insignificant whitespace is not kept.
      expect(normalizeArguments(back)).toEqual(normalizeArguments(openAIMessages));
      expect(fromOpenAIMessages(back)).toEqual(canonical);
    },
  );
});
