import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { anthropicSummaryCall } from './anthropic/summary-anthropic.js';
import { geminiSummaryCall } from './gemini/summary-gemini.js';
import { openAIChatSummaryCall } from './openai-chat/summary-openai-chat.js';
import { responsesSummaryCall } from './responses/summary-responses.js';

const request = {
  messages: [{ role: 'user', content: 'Write a summary.' } as Message],
  maxOutputTokens: 1000,
};
const url = new URL('http://127.0.0.1/v1/x');
const schema = { type: 'object', properties: { answer: { type: 'string' } } };
const chatTool = { type: 'function', function: { name: 'extract', parameters: schema } };
const responsesTool = { type: 'function', name: 'extract', parameters: schema };

// A summary is text: a request that forces a tool call or a JSON shape on the agent's answers must
// not force it on the summary's, or the summary is a tool call (no text, a failed paid call) or the
// client's JSON (taken for the summary, the history replaced by it).
describe('the same summarizer’s call, for a request that forces the answer’s shape', () => {
  it.each([
    ['anthropic any', anthropicSummaryCall, { tool_choice: { type: 'any' } }, { tool_choice: undefined }],
    [
      'anthropic tool',
      anthropicSummaryCall,
      { tool_choice: { type: 'tool', name: 'extract', disable_parallel_tool_use: true } },
      { tool_choice: undefined },
    ],
    [
      'chat required',
      openAIChatSummaryCall,
      { tools: [chatTool], tool_choice: 'required' },
      { tool_choice: undefined },
    ],
    [
      'chat named',
      openAIChatSummaryCall,
      { tools: [chatTool], tool_choice: { type: 'function', function: { name: 'extract' } } },
      { tool_choice: undefined },
    ],
    [
      'chat json_schema',
      openAIChatSummaryCall,
      { response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } },
      { response_format: undefined },
    ],
    [
      'chat json_object',
      openAIChatSummaryCall,
      { response_format: { type: 'json_object' } },
      { response_format: undefined },
    ],
    [
      'responses required',
      responsesSummaryCall,
      { tools: [responsesTool], tool_choice: 'required' },
      { tool_choice: undefined },
    ],
    [
      'responses named',
      responsesSummaryCall,
      { tools: [responsesTool], tool_choice: { type: 'function', name: 'extract' } },
      { tool_choice: undefined },
    ],
    [
      'responses json_schema',
      responsesSummaryCall,
      { text: { format: { type: 'json_schema', name: 'x', schema }, verbosity: 'low' } },
      { text: { verbosity: 'low' } },
    ],
    [
      'gemini ANY',
      geminiSummaryCall,
      { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['extract'] } } },
      { toolConfig: undefined },
    ],
    [
      'gemini ANY, proto names',
      geminiSummaryCall,
      { tool_config: { function_calling_config: { mode: 'ANY' } } },
      { tool_config: undefined, toolConfig: undefined },
    ],
    [
      'gemini JSON mode',
      geminiSummaryCall,
      { generationConfig: { temperature: 0, responseMimeType: 'application/json', responseSchema: schema } },
      { generationConfig: { temperature: 0, maxOutputTokens: 1000 } },
    ],
    [
      'gemini JSON mode, proto names',
      geminiSummaryCall,
      { generation_config: { response_mime_type: 'application/json', max_output_tokens: 10 } },
      { generation_config: { max_output_tokens: 1000 }, generationConfig: undefined },
    ],
  ] as const)('%s: the summary call lets the model write text', (_name, summaryCall, settings, expected) => {
    const body = { model: 'm', max_tokens: 100, messages: [], input: [], contents: [], ...settings };
    const call = summaryCall(url, body as Record<string, unknown>, request);
    for (const [field, value] of Object.entries(expected)) expect(call.body[field]).toEqual(value);
  });

  it.each([
    ['anthropic auto', anthropicSummaryCall, { tool_choice: { type: 'auto' } }, 'tool_choice'],
    ['chat auto', openAIChatSummaryCall, { tool_choice: 'auto' }, 'tool_choice'],
    ['responses text', responsesSummaryCall, { text: { format: { type: 'text' } } }, 'text'],
    [
      'gemini AUTO',
      geminiSummaryCall,
      { toolConfig: { functionCallingConfig: { mode: 'AUTO' } } },
      'toolConfig',
    ],
    [
      'gemini AUTO, proto names',
      geminiSummaryCall,
      { tool_config: { function_calling_config: { mode: 'AUTO' } } },
      'tool_config',
    ],
  ] as const)(
    '%s: a setting that forces nothing is kept, so the prompt cache still reads',
    (_name, summaryCall, settings, field) => {
      const body = { model: 'm', max_tokens: 100, messages: [], input: [], contents: [], ...settings };
      const call = summaryCall(url, body as Record<string, unknown>, request);
      expect(call.body[field]).toEqual((settings as Record<string, unknown>)[field]);
    },
  );
});
