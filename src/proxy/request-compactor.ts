/**
 * The one thing the proxy needs from the library: compact a whole request body of one session.
 *
 * Until `compactRequest` (whole requests, its own branch) lands, this adapts the core compactor for
 * the Anthropic and OpenAI chat bodies; Responses bodies pass through uncompacted. Replace the
 * body of {@link createRequestCompactor} with `createCompactor(...).compactRequest` then.
 */
import { createCompactor } from '../core/compactor.js';
import type { CompactorOptions } from '../core/compactor-options.js';
import { fromOpenAIMessages, toOpenAIMessages } from '../core/conversation/openai-format.js';
import type { OpenAIChatMessage } from '../core/conversation/openai-types.js';
import type { Message, ProviderUsage, SystemPrompt } from '../core/conversation/types.js';
import type { CompactionLayer } from '../core/events.js';
import type { ProxyApi } from './routes.js';

/** What compacting one request returns; `body` is the input object itself when nothing changed. */
export interface RequestCompaction {
  body: Record<string, unknown>;
  layer: CompactionLayer;
  tokensBefore: number;
  tokensAfter: number;
  archived: string[];
}

/** Compacts the requests of one session. */
export interface RequestCompactor {
  compactRequest(
    body: Record<string, unknown>,
    options: { format: ProxyApi; usage?: ProviderUsage; signal?: AbortSignal },
  ): Promise<RequestCompaction>;
}

/** A compactor for one session's requests. */
export function createRequestCompactor(options: CompactorOptions): RequestCompactor {
  const compactor = createCompactor(options);
  return {
    async compactRequest(body, { format, usage, signal }) {
      const conversation = readConversation(format, body);
      if (conversation === undefined) return unchanged(body);
      const result = await compactor.maybeCompact(conversation.messages, {
        ...(conversation.system === undefined ? {} : { system: conversation.system }),
        ...(usage ? { usage } : {}),
        ...(signal ? { signal } : {}),
      });
      const { layer, tokensBefore, tokensAfter, archived } = result;
      if (layer === 'none') return { body, layer, tokensBefore, tokensAfter, archived };
      const messages =
        format === 'anthropic'
          ? result.messages
          : toOpenAIMessages(
              {
                messages: result.messages,
                ...(conversation.system === undefined ? {} : { system: conversation.system }),
              },
              conversation.systemRole ? { systemRole: conversation.systemRole } : {},
            );
      return { body: { ...body, messages }, layer, tokensBefore, tokensAfter, archived };
    },
  };
}

function unchanged(body: Record<string, unknown>): RequestCompaction {
  return { body, layer: 'none', tokensBefore: 0, tokensAfter: 0, archived: [] };
}

function readConversation(
  format: ProxyApi,
  body: Record<string, unknown>,
): { messages: Message[]; system?: SystemPrompt; systemRole?: 'system' | 'developer' } | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  switch (format) {
    case 'anthropic':
      return {
        messages: body.messages as Message[],
        ...(body.system === undefined ? {} : { system: body.system as SystemPrompt }),
      };
    case 'openai':
      return fromOpenAIMessages(body.messages as OpenAIChatMessage[]);
    case 'responses':
      return undefined;
    default: {
      const unreachable: never = format;
      throw new Error(`unknown format ${String(unreachable)}`);
    }
  }
}
