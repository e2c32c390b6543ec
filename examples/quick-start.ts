// An agent loop with compaction: one line more than a loop without it.
// A scripted model on 127.0.0.1 stands in for the API so this runs offline; drop `server` and
// `baseURL` to talk to the real API.
import Anthropic from '@anthropic-ai/sdk';
import { createCompactor, type Message, type ProviderUsage } from 'agent-compact';
import { startScriptedModelServer } from '@agent-compact/testing';

const server = await startScriptedModelServer({
  script: [
    ...Array.from({ length: 40 }, (_, index) => ({
      type: 'tool-calls' as const,
      calls: [{ name: 'read_file', input: { path: `src/module-${index}.ts` } }],
    })),
    'All 40 modules read; the parser is the one that needs work.',
  ],
});
const client = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL });
const readFile = (path: string) => `// ${path}\n${'export const answer = compute(42);\n'.repeat(120)}`;

const system = 'You are a coding agent. Read files with read_file.';
const tools: Anthropic.Tool[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];
const compactor = createCompactor({ contextWindow: 32_000, reserveOutputTokens: 4_000 });

let messages: Message[] = [{ role: 'user', content: 'Read every module in src/ and tell me which needs work.' }];
let usage: ProviderUsage | undefined;
for (let step = 0; step < 50; step++) {
  const compacted = await compactor.maybeCompact(messages, { system, tools, usage }); // ← the one line
  messages = compacted.messages;
  if (compacted.layer !== 'none') console.log(`step ${step}: ${compacted.layer} ${compacted.tokensBefore} → ${compacted.tokensAfter}`);
  const response = await client.messages.create({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    system,
    tools,
    messages: messages as Anthropic.MessageParam[],
  });
  usage = response.usage;
  messages = [...messages, { role: 'assistant', content: response.content as Message['content'] }];
  const calls = response.content.filter((block) => block.type === 'tool_use');
  if (calls.length === 0) break;
  messages = [
    ...messages,
    {
      role: 'user',
      content: calls.map((call) => ({
        type: 'tool_result' as const,
        tool_use_id: call.id,
        content: readFile((call.input as { path: string }).path),
      })),
    },
  ];
}
console.log(messages.at(-1)?.content);
console.log(`${server.requests.length} requests, the largest ${Math.max(...server.requests.map((request) => request.inputTokens))} tokens`);
await server.close();
