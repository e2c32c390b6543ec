// Whole requests: what `compactRequest` adds to `maybeCompact` on every model call (detecting the
// API, reading the conversation out of the body, the provider-compaction boundary, writing it back)
// on Anthropic, OpenAI chat and Responses bodies of growing length, below the thresholds (the
// common call). `npm run bench -- requests`.

import type { Message } from 'agent-compact';
import { createCompactor } from 'agent-compact';
import { readRequestConversation } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import { toOpenAIMessages } from 'agent-compact/wire';

/** Session lengths in tool-call steps. */
const stepCounts = [100, 1000];
/** Characters of each tool output, about a `cat` of a 100-line file. */
const OUTPUT_CHARACTERS = 4000;
/** Calls timed per row, after one warm-up call. */
const calls = 15;
/** Thresholds above every session here: the calls measure reading and writing, not compaction. */
const highThresholds = { mid: 50_000_000, hard: 80_000_000 };

function anthropicMessages(steps: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Make the tests pass.' }];
  const output = 'x'.repeat(OUTPUT_CHARACTERS);
  for (let step = 0; step < steps; step++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `Step ${step}.`, signature: `sig_${step}` },
          { type: 'tool_use', id: `toolu_${step}`, name: 'Read', input: { file_path: `/repo/f${step}.ts` } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${step}`, content: output }] },
    );
  }
  return messages;
}

function bodies(steps: number) {
  const messages = anthropicMessages(steps);
  const output = 'x'.repeat(OUTPUT_CHARACTERS);
  const tools = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object' } }];
  const anthropic = { model: 'claude', max_tokens: 8192, system: 'You are a coding agent.', messages, tools };
  const plain = messages.map((message) => ({
    ...message,
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.filter((block) => block.type !== 'thinking'),
  }));
  const openai = {
    model: 'gpt',
    max_completion_tokens: 8192,
    messages: toOpenAIMessages({ system: 'You are a coding agent.', messages: plain }),
  };
  const responsesInput = plain.flatMap((message): Array<Record<string, unknown>> => {
    if (typeof message.content === 'string')
      return [{ type: 'message', role: message.role, content: message.content }];
    return message.content.map((block) =>
      block.type === 'tool_use'
        ? {
            type: 'function_call',
            call_id: block.id,
            name: block.name,
            arguments: JSON.stringify(block.input),
          }
        : { type: 'function_call_output', call_id: (block as { tool_use_id: string }).tool_use_id, output },
    );
  });
  const responses = {
    model: 'gpt',
    instructions: 'You are a coding agent.',
    input: responsesInput,
    store: false,
  };
  return { anthropic, openai, responses };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median ms of `calls` calls of `action` on its prepared input (prepared outside the timing). */
async function time<T>(prepare: () => T, action: (input: T) => Promise<unknown>): Promise<number> {
  await action(prepare());
  const samples: number[] = [];
  for (let call = 0; call < calls; call++) {
    const input = prepare();
    const start = performance.now();
    await action(input);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function run(): Promise<void> {
  console.log(
    `median of ${calls} calls on one compactor, below the thresholds; ${OUTPUT_CHARACTERS}-character tool outputs.\n` +
      'same body: the same objects every call (an agent loop); parsed body: JSON.parse of the same text before\n' +
      'every call (a proxy), parse time not included.\n',
  );
  console.log(
    '| steps | format | maybeCompact, same messages ms | compactRequest, same body ms | compactRequest, parsed body ms |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: |');
  for (const steps of stepCounts) {
    for (const [format, body] of Object.entries(bodies(steps))) {
      const conversation = readRequestConversation(body, format as WireFormat);
      const options = {
        ...(conversation.system === undefined ? {} : { system: conversation.system }),
        ...(conversation.tools === undefined ? {} : { tools: conversation.tools }),
      };
      const text = JSON.stringify(body);
      const plain = createCompactor({ thresholds: highThresholds });
      const same = createCompactor({ thresholds: highThresholds });
      const parsed = createCompactor({ thresholds: highThresholds });
      const row = [
        await time(
          () => conversation.messages,
          (messages) => plain.maybeCompact(messages, options),
        ),
        await time(
          () => body,
          (input) => same.compactRequest(input),
        ),
        await time(
          () => JSON.parse(text) as object,
          (input) => parsed.compactRequest(input),
        ),
      ];
      console.log(`| ${steps} | ${format} | ${row.map((value) => value.toFixed(2)).join(' | ')} |`);
    }
  }
}
