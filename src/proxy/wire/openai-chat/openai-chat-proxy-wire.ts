/** The proxy's part of OpenAI Chat Completions: `/v1/chat/completions` and its content deltas. */
import type { ProxyWire } from '../proxy-wire.js';
import { openAIChatRecall } from './openai-chat-recall.js';

export const openAIChatProxy: ProxyWire = {
  format: 'openai',
  route: { compacts: (path) => path.endsWith('/v1/chat/completions') },
  checks: { validation: () => ({ format: 'openai' }) },
  writeNote: (data, note) => {
    const choice = (data.choices as { delta?: { content?: unknown } }[] | undefined)?.[0];
    if (typeof choice?.delta?.content !== 'string' || choice.delta.content === '') return false;
    choice.delta.content = `${note}${choice.delta.content}`;
    return true;
  },
  recall: openAIChatRecall,
  cacheWriteMultiplier: 1,
};
