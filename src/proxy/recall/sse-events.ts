/** Splits a server-sent event stream into whole events (`event:` and `data:` lines, blank-line separated). */
import { createSseReader, type SseMessage, sseText } from '../upstream/sse-reader.js';

/** One server-sent event as it came, plus its parsed JSON data when there is any. */
export interface SseEvent {
  /** The event's `event:` and `data:` lines and its trailing blank line, to forward. */
  raw: string;
  /** The `event:` name, if any. */
  name: string | undefined;
  /** The parsed `data:` JSON; `undefined` for `[DONE]` or text that is not JSON. */
  data: Record<string, unknown> | undefined;
}

/** Reads whole events from a byte stream as they complete (the proxy's one SSE reader). */
export async function* sseEvents(stream: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const reader = createSseReader((message) => ready.push(toEvent(message)));
  for await (const chunk of stream) {
    reader.feed(chunk);
    yield* ready.splice(0);
  }
  reader.end();
  yield* ready.splice(0);
}

/** The event as the client gets it (written out again: comments and `id:` lines dropped). */
function toEvent(message: SseMessage): SseEvent {
  const name = message.event;
  const raw = sseText(message);
  let parsed: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(message.data);
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
  } catch {
    // `[DONE]` carries no JSON.
  }
  return { raw, name, data: parsed };
}

/** The event's text with new JSON data, its `event:` line kept. */
export function rewriteEvent(event: SseEvent, data: Record<string, unknown>): string {
  return `${event.name ? `event: ${event.name}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}
