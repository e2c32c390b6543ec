/**
 * Server-sent events read from a byte stream with a maintained parser (`eventsource-parser`) and a
 * streaming UTF-8 decoder, so a character split across two chunks arrives whole.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One event: its `event:` name, if any, and its `data:` lines joined by newlines. */
export type SseMessage = EventSourceMessage;

/** The event written out again: its `event:` and `data:` lines (comments and `id:` lines dropped). */
export function sseText(message: SseMessage): string {
  const lines = message.data.split('\n').map((line) => `data: ${line}\n`);
  return `${message.event ? `event: ${message.event}\n` : ''}${lines.join('')}\n`;
}

/** Feeds chunks of an event stream; calls back once per whole event. */
export interface SseReader {
  feed(chunk: Uint8Array): void;
  /** The stream ended: an event still open (no blank line after it) is delivered as it is. */
  end(): void;
}

/** A reader that calls `onEvent` with each whole event, in order. */
export function createSseReader(onEvent: (event: SseMessage) => void): SseReader {
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent });
  return {
    feed(chunk) {
      parser.feed(decoder.decode(chunk, { stream: true }));
    },
    end() {
      // A blank line closes an event the upstream left open, as the proxy always read them.
      parser.feed(`${decoder.decode()}\n\n`);
      parser.reset();
    },
  };
}
