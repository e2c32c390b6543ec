/** Small readers of answer JSON shared by the formats' recall modules. */
import type { JsonRecord } from './recall-wire.js';

/** The objects of `value` when it is an array, else none. */
export function arrayOf(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'object' && item !== null) : [];
}

/** A call's `arguments` string parsed (`{}` when it is not JSON); a non-string is kept. */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return {};
  }
}

/** Streamed JSON text parsed; `undefined` when empty or not JSON. */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True for the request's ask for a stream in its body (every format but Gemini's). */
export function streamedInBody(_url: URL, body: JsonRecord): boolean {
  return body.stream === true;
}

/** The answer's events as they came: formats without indexes continue a stream unchanged. */
export function unchangedEvent(event: { raw: string }): string {
  return event.raw;
}
