import { describe, expect, it } from 'vitest';
import { WIRE_FORMATS, type WireFormat } from '../../core/model/wire-format.js';
import { dialects } from '../../core/wire/dialects.js';
import { hasRecallTool, toolCallsOf, withoutRecallCalls, withRecallTool } from '../recall/recall-calls.js';
import { proxyWires } from './proxy-wires.js';

/** One answer per format calling `recall` (id r1) and the client's `read_file` (id c1). */
const answers: Record<WireFormat, Record<string, unknown>> = {
  anthropic: {
    content: [
      { type: 'text', text: 'looking' },
      { type: 'tool_use', id: 'r1', name: 'recall', input: { id: 'a' } },
      { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'x' } },
    ],
  },
  openai: {
    choices: [
      {
        message: {
          content: 'looking',
          tool_calls: [
            { id: 'r1', type: 'function', function: { name: 'recall', arguments: '{"id":"a"}' } },
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } },
          ],
        },
      },
    ],
  },
  responses: {
    output: [
      { type: 'function_call', call_id: 'r1', name: 'recall', arguments: '{"id":"a"}' },
      { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"x"}' },
    ],
  },
  gemini: {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: 'r1', name: 'recall', args: { id: 'a' } } },
            { functionCall: { id: 'c1', name: 'read_file', args: { path: 'x' } } },
          ],
        },
      },
    ],
  },
};

/** A client tool per format, in that format's shape. */
const clientTools: Record<WireFormat, unknown> = {
  anthropic: { name: 'read_file', input_schema: { type: 'object' } },
  openai: { type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } },
  responses: { type: 'function', name: 'read_file', parameters: { type: 'object' } },
  gemini: { functionDeclarations: [{ name: 'read_file', parameters: { type: 'object' } }] },
};

describe('the proxy wire registry', () => {
  it('has a proxy part and a recall for every registered wire format, under its own name', () => {
    expect(Object.keys(proxyWires).sort()).toEqual(Object.keys(dialects).sort());
    for (const format of WIRE_FORMATS) {
      expect(proxyWires[format]?.format, format).toBe(format);
      expect(proxyWires[format]?.recall.format, format).toBe(format);
    }
  });

  it.each(WIRE_FORMATS)('%s: declares recall once, finds its calls, and takes them out', (format) => {
    const body = { tools: [clientTools[format]] };
    expect(hasRecallTool(body)).toBe(false);
    const declared = withRecallTool(format, body);
    expect(hasRecallTool(declared)).toBe(true);
    expect(withRecallTool(format, declared)).toBe(declared);
    expect(withRecallTool(format, { tools: [] })).toEqual({ tools: [] });

    expect(toolCallsOf(format, answers[format])).toEqual({
      recall: [{ id: 'r1', input: { id: 'a' } }],
      others: 1,
    });
    const rest = withoutRecallCalls(format, answers[format]);
    expect(toolCallsOf(format, rest)).toEqual({ recall: [], others: 1 });
  });

  it('asks for a stream in the body, or (Gemini) in the method', () => {
    const url = new URL('http://127.0.0.1/v1beta/models/m:streamGenerateContent');
    const plain = new URL('http://127.0.0.1/v1/messages');
    for (const format of ['anthropic', 'openai', 'responses'] as const) {
      expect(proxyWires[format].recall.isStreamed(plain, { stream: true }), format).toBe(true);
      expect(proxyWires[format].recall.isStreamed(url, {}), format).toBe(false);
    }
    expect(proxyWires.gemini.recall.isStreamed(url, {})).toBe(true);
    expect(proxyWires.gemini.recall.isStreamed(plain, { stream: true })).toBe(false);
  });
});
