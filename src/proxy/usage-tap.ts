/**
 * Reads the token usage out of a provider's answer as it streams past, without holding the answer:
 * server-sent events are read whole by the proxy's SSE reader, a JSON body is kept only up to a cap.
 */

import type { ProviderUsage } from '../core/conversation/types.js';
import { dialects } from '../core/wire/dialects.js';
import { geminiUsage } from './gemini/gemini-proxy.js';
import type { ProxyApi } from './routes.js';
import { createSseReader, type SseMessage } from './upstream/sse-reader.js';

/** A JSON answer larger than this is not parsed for usage (the count then falls back to estimates). */
const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

/** Collects usage from the chunks of one answer. */
export interface UsageTap {
  /** Feeds one chunk of the answer body. */
  write(chunk: Buffer): void;
  /** The usage seen, once the answer ended; `undefined` when it reported none. */
  finish(): ProviderUsage | undefined;
}

/**
 * A tap for one answer of `api`; `streamed` when its content type is `text/event-stream`.
 * `onEvent` sees each whole server-sent event the tap read.
 */
export function createUsageTap(
  api: ProxyApi,
  streamed: boolean,
  onEvent?: (event: SseMessage) => void,
): UsageTap {
  return streamed ? sseUsageTap(api, onEvent) : jsonUsageTap(api);
}

function jsonUsageTap(api: ProxyApi): UsageTap {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    write(chunk) {
      size += chunk.length;
      if (size <= MAX_JSON_BODY_BYTES) chunks.push(chunk);
    },
    finish() {
      if (size > MAX_JSON_BODY_BYTES) return undefined;
      const parsed = parseJson(Buffer.concat(chunks).toString('utf8'));
      return dialects[api].usageOf(parsed);
    },
  };
}

function sseUsageTap(api: ProxyApi, onEvent?: (event: SseMessage) => void): UsageTap {
  let usage: ProviderUsage | undefined;
  const marker = api === 'gemini' ? '"usageMetadata"' : '"usage"';
  const reader = createSseReader((message) => {
    onEvent?.(message);
    // Only the few events that carry usage are parsed; text deltas are skipped by this cheap test.
    if (!message.data.includes(marker)) return;
    const event = parseJson(message.data) as Record<string, unknown> | undefined;
    if (!event) return;
    if (api === 'gemini') {
      // Every Gemini chunk repeats the usage so far; the last one holds the answer's.
      usage = geminiUsage(event) ?? usage;
      return;
    }
    const normalized = normalizeUsage(api, usageOfEvent(event));
    if (normalized) usage = { ...usage, ...normalized };
  });
  return {
    write: (chunk) => reader.feed(chunk),
    finish() {
      reader.end();
      return usage;
    },
  };
}

/** Anthropic puts usage in `message_start.message.usage` and `message_delta.usage`; Responses in `response.usage`. */
function usageOfEvent(event: Record<string, unknown>): unknown {
  if (event.usage !== undefined && event.usage !== null) return event.usage;
  const nested = (event.message ?? event.response) as { usage?: unknown } | undefined;
  return nested?.usage;
}

/** Usage in the shape the core's counter reads (the dialect's); a Responses answer's `input_tokens` is the whole prompt. */
export function normalizeUsage(api: ProxyApi, usage: unknown): ProviderUsage | undefined {
  // Gemini reports `usageMetadata` beside the answer, never a `usage` object: nothing to read here.
  return api === 'gemini' ? undefined : dialects[api].usageOf({ usage });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
