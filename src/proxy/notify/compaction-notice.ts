/**
 * Telling the agent's user what the proxy did: `x-agent-compact-*` response headers on every
 * compacted-API answer, and with `--notify` a one-line note in front of the first text of a
 * streamed answer after a hard compaction.
 */
import type { ServerResponse } from 'node:http';
import type { CompactionLayer } from 'agent-compact';
import type { WireFormat } from 'agent-compact/wire';
import { createSseReader, type SseMessage, sseText } from '../upstream/sse-reader.js';
import { proxyWires } from '../wire/proxy-wires.js';

/** The figures of one request, as the headers and the JSON log carry them. */
export interface CompactionFigures {
  layer: CompactionLayer;
  tokensBefore: number;
  tokensAfter: number;
  /** The short session id, as in the log line. */
  session: string;
}

/** Sets the four headers; `writeHead` later merges them with the upstream's. */
export function setCompactionHeaders(response: ServerResponse, figures: CompactionFigures): void {
  if (response.headersSent) return;
  response.setHeader('x-agent-compact-layer', figures.layer);
  response.setHeader('x-agent-compact-tokens-before', String(figures.tokensBefore));
  response.setHeader('x-agent-compact-tokens-after', String(figures.tokensAfter));
  response.setHeader('x-agent-compact-session', figures.session);
}

/** The note's text, e.g. `[agent-compact: context compacted 120,400 → 31,200 tokens (hard)]`. */
export function noticeText(figures: CompactionFigures): string {
  const number = (value: number) => value.toLocaleString('en-US');
  return `[agent-compact: context compacted ${number(figures.tokensBefore)} → ${number(figures.tokensAfter)} tokens (${figures.layer})]\n\n`;
}

/**
 * Puts `note` in front of the first text delta of the streamed answer written to `response`. Until
 * the note is placed the stream is read by the proxy's SSE reader and written again event by event
 * (a part event waits for its end); from the first chunk that ends on an event boundary after it,
 * chunks pass unchanged. A JSON (not streamed) answer is left as it is, since its length is already
 * sent.
 */
export function prependNoteToStream(response: ServerResponse, api: WireFormat, note: string): void {
  const write = response.write.bind(response) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  let noted = false;
  let out = '';
  const reader = createSseReader((message) => {
    const text = noted ? undefined : withNote(api, message, note);
    noted ||= text !== undefined;
    out += text ?? sseText(message);
  });
  // `undefined` until the first write, then whether the stream is still read event by event.
  let reading: boolean | undefined;
  const feed = (chunk: unknown): string => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
    reader.feed(bytes);
    // A chunk ending in a blank line leaves nothing half-read: after the note, pass the rest as it is.
    if (noted && endsOnBoundary(bytes)) reading = false;
    const text = out;
    out = '';
    return text;
  };
  response.write = ((chunk: unknown, ...rest: unknown[]) => {
    reading ??= String(response.getHeader('content-type') ?? '').includes('text/event-stream');
    if (!reading) return write(chunk, ...rest);
    const text = feed(chunk);
    return text === '' ? true : write(text);
  }) as ServerResponse['write'];
  // An answer that ends inside an event still has that event delivered.
  response.end = ((...args: unknown[]) => {
    if (!reading) return end(...args);
    reading = false;
    const last = typeof args[0] === 'string' || args[0] instanceof Uint8Array ? feed(args.shift()) : '';
    if (typeof args[0] === 'string') args.shift(); // the last chunk's encoding
    reader.end();
    const text = last + out;
    out = '';
    if (text !== '') write(text);
    return end(...args);
  }) as ServerResponse['end'];
}

/** True when the bytes end in a blank line (`\n\n` or `\r\n\r\n`), so no event is left open. */
function endsOnBoundary(bytes: Uint8Array): boolean {
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 4))).toString('latin1');
  return tail.endsWith('\n\n') || tail.endsWith('\r\n\r\n');
}

/** The event with the note in its text, or `undefined` when it carries no text to put it in front of. */
function withNote(api: WireFormat, message: SseMessage, note: string): string | undefined {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(message.data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || !addNote(api, data, note)) return undefined;
  return sseText({ ...message, data: JSON.stringify(data) });
}

/** Prepends the note to the event's text field in place; false when the event has no text delta. */
function addNote(api: WireFormat, data: Record<string, unknown>, note: string): boolean {
  return proxyWires[api].writeNote(data, note);
}
