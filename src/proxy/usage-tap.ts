/**
 * Reads the token usage out of a provider's answer as it streams past, without holding the answer:
 * server-sent events are read whole by the proxy's SSE reader, a JSON body is kept only up to a cap.
 */

import type { ProviderUsage } from 'agent-compact';
import { dialects } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
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
  api: WireFormat,
  streamed: boolean,
  onEvent?: (event: SseMessage) => void,
): UsageTap {
  return streamed ? sseUsageTap(api, onEvent) : jsonUsageTap(api);
}

function jsonUsageTap(api: WireFormat): UsageTap {
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

function sseUsageTap(api: WireFormat, onEvent?: (event: SseMessage) => void): UsageTap {
  const dialect = dialects[api];
  let usage: ProviderUsage | undefined;
  const reader = createSseReader((message) => {
    onEvent?.(message);
    // Only the few events that carry usage are parsed; text deltas are skipped by this cheap test
    // (`"usage` starts both `"usage"` and Gemini's `"usageMetadata"`).
    if (!message.data.includes('"usage')) return;
    const event = parseJson(message.data) as Record<string, unknown> | undefined;
    if (event) usage = dialect.eventUsage(event, usage);
  });
  return {
    write: (chunk) => reader.feed(chunk),
    finish() {
      reader.end();
      return usage;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
