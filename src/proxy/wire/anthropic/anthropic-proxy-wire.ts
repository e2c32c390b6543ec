/** The proxy's part of Anthropic Messages: `/v1/messages`, its token count, betas, text deltas. */
import { allowsSystemMessages, checksThinkingPrefix, withoutThinking } from 'agent-compact/wire';
import { defaultPriceTable } from '../../price-table.js';
import type { ProxyWire } from '../proxy-wire.js';
import { anthropicRecall } from './anthropic-recall.js';

/** The path suffix of Anthropic's token counting endpoint (after any base-URL prefix). */
export const ANTHROPIC_COUNT_TOKENS_SUFFIX = '/v1/messages/count_tokens';

export const anthropicProxy: ProxyWire = {
  format: 'anthropic',
  route: {
    compacts: (path) => path.endsWith('/v1/messages'),
    tokenCount: {
      matches: (pathname) => pathname.replace(/\/+$/, '').endsWith(ANTHROPIC_COUNT_TOKENS_SUFFIX),
    },
  },
  checks: {
    bindsThinking: (body) => checksThinkingPrefix(body.model),
    withoutThinking,
    validation: (body, headers) => ({
      format: 'anthropic',
      ...(body.system !== undefined ? { system: body.system } : {}),
      ...(allowsSystemMessages(headers['anthropic-beta']) ? { systemMessages: true } : {}),
    }),
  },
  writeNote: (data, note) => {
    const delta = data.delta as { type?: unknown; text?: unknown } | undefined;
    if (data.type !== 'content_block_delta' || delta?.type !== 'text_delta') return false;
    delta.text = `${note}${String(delta.text ?? '')}`;
    return true;
  },
  recall: anthropicRecall,
  cacheWriteMultiplier: defaultPriceTable.cacheWriteMultiplier,
};
