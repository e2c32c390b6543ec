/**
 * A held-back stream in which the model called `recall` and the client's own tools in the same
 * turn: the proxy cannot answer the recall without dropping the client's calls, so it passes the
 * turn on as a plain (non-streamed) answer would be — the client's calls whole, the recall calls
 * taken out, block / call / output indexes closed up so the client sees a well-formed stream.
 * These are the editing steps the formats' recall modules share.
 */
import type { JsonRecord } from './recall-wire.js';
import { rewriteEvent, type SseEvent } from './sse-events.js';

/** The indexes `indexOf` finds a recall call opened at. */
export function recallIndexes(
  events: readonly SseEvent[],
  indexOf: (data: JsonRecord) => number | undefined,
): Set<number> {
  const indexes = new Set<number>();
  for (const { data } of events) {
    const index = data ? indexOf(data) : undefined;
    if (index !== undefined) indexes.add(index);
  }
  return indexes;
}

/** Drops the events of the recall indexes and moves later indexes down past them. */
export function renumbered(events: readonly SseEvent[], recall: Set<number>, field: string): SseEvent[] {
  if (recall.size === 0) return [...events];
  const kept: SseEvent[] = [];
  for (const event of events) {
    const index = event.data?.[field];
    if (typeof index !== 'number') kept.push(event);
    else if (!recall.has(index))
      kept.push(withData(event, { ...event.data, [field]: closedUp(index, recall) }));
  }
  return kept;
}

/** `index` after the `removed` indexes below it are gone. */
export function closedUp(index: number, removed: Set<number>): number {
  let below = 0;
  for (const gone of removed) if (gone < index) below += 1;
  return index - below;
}

/** The event with new JSON data, its text written again. */
export function withData(event: SseEvent, data: JsonRecord): SseEvent {
  return { ...event, raw: rewriteEvent(event, data), data };
}

/** The event with its numeric `field` moved up by `offset`, as text. */
export function shiftedEvent(event: SseEvent & { data: JsonRecord }, field: string, offset: number): string {
  const index = event.data[field];
  return typeof index === 'number'
    ? rewriteEvent(event, { ...event.data, [field]: index + offset })
    : event.raw;
}
