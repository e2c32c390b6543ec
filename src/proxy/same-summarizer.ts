/**
 * The `same` summarizer: the client's own provider, model and key, read from the request being
 * compacted. The request's system, tools and history go upstream unchanged with the summary
 * instructions appended, so the provider reads the prefix from its prompt cache. Keys stay in the
 * headers of that one request: never in errors, logs or archives.
 */

import type { IncomingHttpHeaders } from 'node:http';
import { toOpenAIMessages } from '../core/conversation/openai-format.js';
import { toResponsesInput } from '../core/conversation/responses-format.js';
import type { Message, SystemPrompt } from '../core/conversation/types.js';
import { CompactError } from '../core/errors.js';
import type { SummaryModel, SummaryRequest, SummaryResult } from '../core/summary/summary-model.js';
import { upstreamHeaders } from './forward.js';
import { geminiSummaryCall, geminiSummaryResult } from './gemini/gemini-proxy.js';
import type { ProxyApi } from './routes.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

/** The request a summary borrows its provider, model, key and settings from. */
export interface SummaryContext {
  api: ProxyApi;
  /** The upstream URL of the request (same path and query). */
  url: URL;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A summary model bound to one request: it summarizes with that request's provider, model, key and
 * settings. The proxy passes it with the compaction call of that request (a background summary it
 * starts keeps it).
 */
export function createSameSummaryModel(client: UpstreamClient, context: SummaryContext): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: 'same',
    modelId: 'same',
    async summarize(request, options = {}) {
      const call =
        context.api === 'gemini'
          ? geminiSummaryCall(context.url, context.body, request)
          : { url: context.url, body: summaryBody(context, request) };
      const { body } = call;
      const headers = upstreamHeaders(context.headers, undefined);
      delete headers['content-length'];
      headers['accept-encoding'] = 'identity';
      headers['content-type'] = 'application/json';
      let status: number;
      let text: string;
      try {
        const answer = await client.send({
          url: call.url,
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: options.signal,
        });
        status = answer.status;
        text = await answer.body.text();
      } catch (error) {
        throw summaryError(`${context.url.origin} could not be reached`, error);
      }
      if (status < 200 || status >= 300) {
        throw summaryError(`${context.url.origin}${context.url.pathname} answered ${status}`);
      }
      return context.api === 'gemini' ? readGeminiSummary(text) : readSummary(context.api, text);
    },
  };
}

function summaryBody(context: SummaryContext, request: SummaryRequest): Record<string, unknown> {
  const { api, body } = context;
  const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
  switch (api) {
    case 'anthropic': {
      // Thinking is turned off for the summary: its messages lose their thinking blocks, and the
      // API rejects thinking on a history whose last assistant turn used tools without them.
      const { thinking: _thinking, context_management: management, ...settings } = rest;
      const kept = withoutThinkingEdits(management);
      return {
        ...settings,
        ...(kept === undefined ? {} : { context_management: kept }),
        ...(request.system === undefined ? {} : { system: request.system }),
        messages: request.messages,
        max_tokens: request.maxOutputTokens,
      };
    }
    case 'openai': {
      const messages = toOpenAIMessages(withSystem(request.messages, request.system));
      const limitField = body.max_tokens !== undefined ? 'max_tokens' : 'max_completion_tokens';
      return { ...rest, messages, [limitField]: request.maxOutputTokens };
    }
    case 'responses': {
      // System text read from `instructions` stays there (toResponsesInput leaves it out).
      const input = toResponsesInput(request.messages, request.system);
      return { ...rest, input, max_output_tokens: request.maxOutputTokens };
    }
    case 'gemini':
      throw summaryError('the Gemini API has its own summary call');
    default: {
      const unreachable: never = api;
      throw summaryError(`unknown API ${String(unreachable)}`);
    }
  }
}

/** Context management without its thinking edits (they need thinking on); `undefined` when none are left. */
function withoutThinkingEdits(management: unknown): unknown {
  if (typeof management !== 'object' || management === null) return management;
  const edits = (management as { edits?: unknown }).edits;
  if (!Array.isArray(edits)) return management;
  const kept = edits.filter(
    (edit: { type?: unknown }) => !String(edit?.type ?? '').startsWith('clear_thinking'),
  );
  return kept.length === 0 ? undefined : { ...management, edits: kept };
}

function withSystem(messages: Message[], system: SystemPrompt | undefined) {
  return system === undefined ? { messages } : { messages, system };
}

function readSummary(api: ProxyApi, text: string): SummaryResult {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw summaryError('the summary answer is not JSON', error);
  }
  const summary = answerText(api, parsed);
  if (summary.trim() === '') throw summaryError('the summary answer has no text');
  const usage = parsed.usage as Record<string, number | undefined> | undefined;
  const inputTokens = usage?.input_tokens ?? usage?.prompt_tokens;
  const outputTokens = usage?.output_tokens ?? usage?.completion_tokens;
  return {
    text: summary,
    usage: {
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
      ...(usage?.cache_read_input_tokens === undefined
        ? {}
        : { cacheReadTokens: usage.cache_read_input_tokens }),
    },
  };
}

function answerText(api: ProxyApi, parsed: Record<string, unknown>): string {
  switch (api) {
    case 'anthropic':
      return textOfBlocks(parsed.content);
    case 'openai': {
      const choices = parsed.choices as { message?: { content?: unknown } }[] | undefined;
      return String(choices?.[0]?.message?.content ?? '');
    }
    case 'responses': {
      const output = Array.isArray(parsed.output)
        ? (parsed.output as { type?: unknown; content?: unknown }[])
        : [];
      return output
        .filter((item) => item?.type === 'message' && Array.isArray(item.content))
        .flatMap((item) => item.content as { type?: unknown; text?: unknown }[])
        .filter((part) => part?.type === 'output_text' && typeof part.text === 'string')
        .map((part) => part.text as string)
        .join('\n');
    }
    case 'gemini':
      throw summaryError('the Gemini API has its own summary call');
    default: {
      const unreachable: never = api;
      throw summaryError(`unknown API ${String(unreachable)}`);
    }
  }
}

function textOfBlocks(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        block?.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}

function readGeminiSummary(text: string): SummaryResult {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw summaryError('the summary answer is not JSON', error);
  }
  const result = geminiSummaryResult(parsed);
  if (result.text.trim() === '') throw summaryError('the summary answer has no text');
  return result;
}

function summaryError(reason: string, cause?: unknown): CompactError {
  return new CompactError(`same summarizer: ${reason}`, {
    code: 'SUMMARY_FAILED',
    ...(cause === undefined ? {} : { cause }),
  });
}
