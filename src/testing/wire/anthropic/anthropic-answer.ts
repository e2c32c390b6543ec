/**
 * How the scripted server writes answers on the Anthropic Messages wire: the `Message` object and
 * its server-sent events (`message_start`, `content_block_*`, `message_delta`), in the real order.
 */
import { type Answer, type AnswerBlock, streamPieces } from '../../_wire.js';
import { thinkingSignature } from './thinking-prefix.js';

/** What an Anthropic answer carries beyond {@link Answer}. */
interface AnthropicExtras {
  /** With thinking on, the signature of the thinking block the answer opens with. */
  thinkingSignature?: string;
}

/**
 * A request that turns thinking on gets answers that open with a signed thinking block, as the API
 * gives them with `display: "omitted"`: no text, a signature the client must send back (bound to the
 * messages before it on a model with preserved thinking, `thinking-prefix.ts`).
 */
export function anthropicExtras(body: Record<string, unknown>, answerNumber: number): AnthropicExtras {
  return thinkingOn(body) ? { thinkingSignature: thinkingSignature(body, answerNumber) } : {};
}

/** Whether a request turns thinking on (`enabled` with a budget, or `adaptive`). */
export function thinkingOn(body: Record<string, unknown>): boolean {
  const type = (body.thinking as { type?: unknown } | undefined)?.type;
  return type === 'enabled' || type === 'adaptive';
}

function thinkingBlock(answer: Answer): Record<string, unknown>[] {
  const signature = (answer as Answer & AnthropicExtras).thinkingSignature;
  return signature === undefined ? [] : [{ type: 'thinking', thinking: '', signature }];
}

function anthropicUsage(answer: Answer, outputTokens: number): Record<string, unknown> {
  const usage: Record<string, unknown> = { input_tokens: answer.usage.uncachedTokens };
  if (answer.reportCacheFields) {
    usage.cache_creation_input_tokens = answer.usage.cacheWriteTokens;
    usage.cache_read_input_tokens = answer.usage.cacheReadTokens;
  }
  usage.output_tokens = outputTokens;
  return usage;
}

/** The Anthropic `Message` object of an answer. */
export function anthropicMessage(answer: Answer): Record<string, unknown> {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: [...thinkingBlock(answer), ...answer.blocks],
    stop_reason: answer.stop,
    stop_sequence: null,
    usage: anthropicUsage(answer, answer.usage.outputTokens),
  };
}

/** The Anthropic server-sent events of an answer, in the real order. */
export function anthropicEvents(answer: Answer): string[] {
  const thinking = thinkingBlock(answer);
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: {
        ...anthropicMessage(answer),
        content: [],
        stop_reason: null,
        usage: anthropicUsage(answer, 1),
      },
    },
    { type: 'ping' },
    ...thinking.flatMap((block, index) => thinkingBlockEvents(block, index)),
    // The content blocks are numbered after the thinking block.
    ...answer.blocks.flatMap((block, blockIndex) => contentBlockEvents(block, blockIndex + thinking.length)),
    {
      type: 'message_delta',
      delta: { stop_reason: answer.stop, stop_sequence: null },
      usage: { output_tokens: answer.usage.outputTokens },
    },
    { type: 'message_stop' },
  ];
  return events.map(serverSentEvent);
}

/** One event as the stream writes it: its type as the event name, then its JSON. */
function serverSentEvent(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A thinking block streams no text (`display: "omitted"`), only its signature. */
function thinkingBlockEvents(block: Record<string, unknown>, index: number): Record<string, unknown>[] {
  return [
    {
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    },
    {
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: block.signature },
    },
    { type: 'content_block_stop', index },
  ];
}

/** A text block streams in pieces; a tool call's input streams as its JSON, in two halves. */
function contentBlockEvents(block: AnswerBlock, index: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  switch (block.type) {
    case 'text':
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of streamPieces(block.text)) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
      break;
    case 'tool_use': {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      const middle = Math.ceil(json.length / 2);
      for (const partial of [json.slice(0, middle), json.slice(middle)]) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        });
      }
      break;
    }
    default: {
      const unreachable: never = block;
      throw new Error(`unknown block ${JSON.stringify(unreachable)}`);
    }
  }
  events.push({ type: 'content_block_stop', index });
  return events;
}
