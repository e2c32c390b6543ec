/** Splits a server-sent event stream into whole events (`event:` and `data:` lines, blank-line separated). */

/** One server-sent event as it came, plus its parsed JSON data when there is any. */
export interface SseEvent {
  /** The event's text including its trailing blank line, to forward unchanged. */
  raw: string;
  /** The `event:` name, if any. */
  name: string | undefined;
  /** The parsed `data:` JSON; `undefined` for `[DONE]` or text that is not JSON. */
  data: Record<string, unknown> | undefined;
}

/** Reads whole events from a byte stream as they complete. */
export async function* sseEvents(stream: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    let end = pending.indexOf('\n\n');
    while (end !== -1) {
      const raw = pending.slice(0, end + 2);
      pending = pending.slice(end + 2);
      yield parseEvent(raw);
      end = pending.indexOf('\n\n');
    }
  }
  if (pending.trim() !== '') yield parseEvent(`${pending}\n\n`);
}

function parseEvent(raw: string): SseEvent {
  let name: string | undefined;
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  let parsed: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(data.join('\n'));
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
  } catch {
    // `[DONE]` and comments carry no JSON.
  }
  return { raw, name, data: parsed };
}

/** The event's text with new JSON data, its `event:` line kept. */
export function rewriteEvent(event: SseEvent, data: Record<string, unknown>): string {
  return `${event.name ? `event: ${event.name}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}
