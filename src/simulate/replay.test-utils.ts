import type { Message } from '../core/model/messages.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';

/** One token per character, so budgets and expected counts can be worked out by hand. */
export const characters: TokenCounter = {
  specificationVersion: 'v1',
  name: 'characters',
  countText: (text) => text.length,
};

/** Tool turn `index` of a replayed session: the assistant runs `make step<index>`, the result is `output`. */
export function bashTurn(index: number, output: string): [Message, Message] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${index}`, name: 'bash', input: { command: `make step${index}` } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: output }] },
  ];
}
