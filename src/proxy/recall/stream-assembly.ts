/**
 * Rebuilds a streamed answer from its events, in the shape of the API's plain answer, and notices
 * when the model starts a `recall` call — the point from which the proxy holds the stream back.
 */
import type { ProxyApi } from '../routes.js';
import { geminiAssembler } from './gemini-recall.js';
import { RECALL_TOOL_NAME } from './recall-calls.js';
import type { SseEvent } from './sse-events.js';

/** Collects one streamed answer. */
export interface StreamAssembler {
  add(event: SseEvent): void;
  /** True once the model has begun a recall call. */
  readonly recallStarted: boolean;
  /** The whole answer as the API's plain (non-streamed) body. */
  answer(): Record<string, unknown>;
}

/** An assembler for `api`. */
export function createStreamAssembler(api: ProxyApi): StreamAssembler {
  switch (api) {
    case 'anthropic':
      return anthropicAssembler();
    case 'openai':
      return chatAssembler();
    case 'responses':
      return responsesAssembler();
    case 'gemini':
      return geminiAssembler();
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

type Block = Record<string, unknown> & { partialJson?: string };

function anthropicAssembler(): StreamAssembler {
  const blocks: Block[] = [];
  let recallStarted = false;
  return {
    add({ data }) {
      if (!data) return;
      const index = typeof data.index === 'number' ? data.index : -1;
      if (data.type === 'content_block_start') {
        const block = { ...(data.content_block as Record<string, unknown>) };
        if (block.type === 'tool_use' && block.name === RECALL_TOOL_NAME) recallStarted = true;
        blocks[index] = block;
      } else if (data.type === 'content_block_delta') {
        const block = blocks[index];
        const delta = data.delta as Record<string, unknown>;
        if (!block || !delta) return;
        if (delta.type === 'text_delta') block.text = `${block.text ?? ''}${delta.text}`;
        else if (delta.type === 'input_json_delta')
          block.partialJson = `${block.partialJson ?? ''}${delta.partial_json}`;
        else if (delta.type === 'thinking_delta') block.thinking = `${block.thinking ?? ''}${delta.thinking}`;
        else if (delta.type === 'signature_delta') block.signature = delta.signature;
      }
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      const content = blocks
        .filter(Boolean)
        .map(({ partialJson, ...block }) =>
          block.type === 'tool_use'
            ? { ...block, input: parseJson(partialJson) ?? block.input ?? {} }
            : block,
        );
      return { role: 'assistant', content };
    },
  };
}

function chatAssembler(): StreamAssembler {
  let content = '';
  const calls: { id?: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  let recallStarted = false;
  return {
    add({ data }) {
      const delta = (data?.choices as { delta?: Record<string, unknown> }[] | undefined)?.[0]?.delta;
      if (!delta) return;
      if (typeof delta.content === 'string') content += delta.content;
      for (const part of (delta.tool_calls as Record<string, unknown>[] | undefined) ?? []) {
        const index = typeof part.index === 'number' ? part.index : calls.length;
        calls[index] ??= { type: 'function', function: { name: '', arguments: '' } };
        const call = calls[index];
        const fn = (part.function ?? {}) as { name?: string; arguments?: string };
        if (typeof part.id === 'string') call.id = part.id;
        if (fn.name) call.function.name += fn.name;
        if (fn.arguments) call.function.arguments += fn.arguments;
        if (call.function.name === RECALL_TOOL_NAME) recallStarted = true;
      }
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      const message = {
        role: 'assistant',
        content: content === '' ? null : content,
        tool_calls: calls.filter(Boolean),
      };
      return { choices: [{ index: 0, message }] };
    },
  };
}

function responsesAssembler(): StreamAssembler {
  let completed: Record<string, unknown> | undefined;
  let recallStarted = false;
  return {
    add({ data }) {
      if (!data) return;
      const item = data.item as { type?: unknown; name?: unknown } | undefined;
      if (
        data.type === 'response.output_item.added' &&
        item?.type === 'function_call' &&
        item.name === RECALL_TOOL_NAME
      ) {
        recallStarted = true;
      }
      if (data.type === 'response.completed') completed = data.response as Record<string, unknown>;
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      return completed ?? { output: [] };
    },
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
