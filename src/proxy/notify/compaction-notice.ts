/**
 * Telling the agent's user what the proxy did: `x-agent-compact-*` response headers on every
 * compacted-API answer, and with `--notify` a one-line note in front of the first text of a
 * streamed answer after a hard compaction.
 */
import type { ServerResponse } from 'node:http';
import type { CompactionLayer } from '../../core/events.js';
import type { WireFormat } from '../../core/wire/wire-format.js';
import type { ProxyApi } from '../routes.js';

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
 * Puts `note` in front of the first text delta of the streamed answer written to `response`. The
 * stream is cut at event boundaries until the note is placed; after that chunks pass unchanged.
 * A JSON (not streamed) answer is left as it is, since its length is already sent.
 */
export function prependNoteToStream(response: ServerResponse, api: ProxyApi, note: string): void {
  const write = response.write.bind(response) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const decoder = new TextDecoder();
  let pending = '';
  let done = false;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (done) return write(chunk, ...rest);
    if (!String(response.getHeader('content-type') ?? '').includes('text/event-stream')) {
      done = true;
      return write(chunk, ...rest);
    }
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let end = pending.indexOf('\n\n');
    let out = '';
    while (end !== -1 && !done) {
      const event = pending.slice(0, end + 2);
      pending = pending.slice(end + 2);
      const noted = withNote(api, event, note);
      done = noted !== undefined;
      out += noted ?? event;
      end = pending.indexOf('\n\n');
    }
    if (done) {
      out += pending;
      pending = '';
    }
    return out === '' ? true : write(out);
  }) as ServerResponse['write'];
  // An answer that ends inside an event keeps its last bytes.
  response.end = ((...args: unknown[]) => {
    if (pending !== '') write(pending);
    pending = '';
    return end(...args);
  }) as ServerResponse['end'];
}

/** The event with the note in its text, or `undefined` when it carries no text to put it in front of. */
function withNote(api: ProxyApi, event: string, note: string): string | undefined {
  const lines = event.split('\n');
  const index = lines.findIndex((line) => line.startsWith('data:'));
  if (index === -1) return undefined;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(lines[index]!.slice(5).trimStart()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!addNote(api, data, note)) return undefined;
  lines[index] = `data: ${JSON.stringify(data)}`;
  return lines.join('\n');
}

/** Prepends a note to one streamed event's text in place; false when the event has no text delta. */
type NoteWriter = (data: Record<string, unknown>, note: string) => boolean;

/** Where each API streams answer text: one writer per format, looked up instead of switched on. */
const noteWriters: Record<WireFormat, NoteWriter> = {
  anthropic: (data, note) => {
    const delta = data.delta as { type?: unknown; text?: unknown } | undefined;
    if (data.type !== 'content_block_delta' || delta?.type !== 'text_delta') return false;
    delta.text = `${note}${String(delta.text ?? '')}`;
    return true;
  },
  openai: (data, note) => {
    const choice = (data.choices as { delta?: { content?: unknown } }[] | undefined)?.[0];
    if (typeof choice?.delta?.content !== 'string' || choice.delta.content === '') return false;
    choice.delta.content = `${note}${choice.delta.content}`;
    return true;
  },
  responses: (data, note) => {
    if (data.type !== 'response.output_text.delta' || typeof data.delta !== 'string') return false;
    data.delta = `${note}${data.delta}`;
    return true;
  },
  gemini: (data, note) => {
    const candidates = data.candidates as
      | { content?: { parts?: { text?: unknown; thought?: unknown }[] } }[]
      | undefined;
    const part = candidates?.[0]?.content?.parts?.find(
      (each) => typeof each.text === 'string' && !each.thought,
    );
    if (part === undefined) return false;
    part.text = `${note}${String(part.text)}`;
    return true;
  },
};

/** Prepends the note to the event's text field in place; false when the event has no text delta. */
function addNote(api: ProxyApi, data: Record<string, unknown>, note: string): boolean {
  return noteWriters[api](data, note);
}
