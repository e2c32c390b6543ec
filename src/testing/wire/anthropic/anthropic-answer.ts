/**
 * How the scripted server writes answers on the Anthropic Messages wire: the `Message` object and
 * its server-sent events (`message_start`, `content_block_*`, `message_delta`), in the real order.
 */
import { type Answer, streamPieces } from '../../_wire.js';
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
  const events: string[] = [];
  const event = (data: Record<string, unknown>): void => {
    events.push(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  event({
    type: 'message_start',
    message: {
      ...anthropicMessage(answer),
      content: [],
      stop_reason: null,
      usage: anthropicUsage(answer, 1),
    },
  });
  event({ type: 'ping' });
  const thinking = thinkingBlock(answer);
  for (const [index, block] of thinking.entries()) {
    event({
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    event({
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: block.signature },
    });
    event({ type: 'content_block_stop', index });
  }
  answer.blocks.forEach((block, blockIndex) => {
    const index = blockIndex + thinking.length;
    switch (block.type) {
      case 'text':
        event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of streamPieces(block.text)) {
          event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        }
        break;
      case 'tool_use': {
        event({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const json = JSON.stringify(block.input);
        const middle = Math.ceil(json.length / 2);
        for (const partial of [json.slice(0, middle), json.slice(middle)]) {
          event({
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
    event({ type: 'content_block_stop', index });
  });
  event({
    type: 'message_delta',
    delta: { stop_reason: answer.stop, stop_sequence: null },
    usage: { output_tokens: answer.usage.outputTokens },
  });
  event({ type: 'message_stop' });
  return events;
}
