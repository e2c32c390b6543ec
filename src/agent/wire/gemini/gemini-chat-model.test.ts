import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../core/model/messages.js';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../testing/scripted-model-server.js';
import { signatureOf } from '../../../testing/wire/gemini/gemini-server.js';
import { createGeminiChatModel } from './gemini-chat-model.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [
  {
    name: 'read_file',
    description: 'Reads a file.',
    inputSchema: { type: 'object' as const, properties: {} },
  },
];

describe('createGeminiChatModel', () => {
  it('calls tools, then sends the signed call back unchanged so the API accepts the next turn', async () => {
    server = await startScriptedModelServer({
      script: [{ type: 'tool-calls', calls: [{ name: 'read_file', input: { path: 'a.ts' } }] }, 'Done.'],
    });
    const model = createGeminiChatModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.geminiBaseURL });
    const messages: Message[] = [{ role: 'user', content: 'Read a.ts' }];
    const first = await model.generate({
      system: 'Be brief.',
      messages,
      tools: tools as never,
      maxOutputTokens: 100,
    });
    expect(first.stopReason).toBe('tool-use');
    expect(first.usage?.promptTokenCount).toBe(server.requests[0]!.inputTokens);
    const call = (first.message.content as { type: string; id?: string }[]).find(
      (block) => block.type === 'tool_use',
    )!;
    messages.push(first.message, {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: call.id!, content: 'export const a = 1;' }],
    });
    const second = await model.generate({
      system: 'Be brief.',
      messages,
      tools: tools as never,
      maxOutputTokens: 100,
    });
    expect(second.stopReason).toBe('end-turn');
    expect(server.requests.map((request) => request.outcome)).toEqual(['tool-calls', 'text']);
    const sent = server.requests[1]!.body.contents as { parts: Record<string, unknown>[] }[];
    expect(sent[1]!.parts[0]).toMatchObject({
      thoughtSignature: signatureOf(1),
      functionCall: { name: 'read_file' },
    });
    expect(sent[2]!.parts[0]).toEqual({
      functionResponse: { id: call.id, name: 'read_file', response: { output: 'export const a = 1;' } },
    });
  });
});
