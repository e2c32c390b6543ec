import type { Message } from '../model/messages.js';

/**
 * How many leading messages two histories share as the same objects. A layer keeps every message
 * it leaves alone as the same object, so this is where its change starts (and the provider's cache
 * stops matching).
 */
export function commonPrefixLength(previous: readonly Message[], next: readonly Message[]): number {
  if (previous === next) return previous.length;
  const limit = Math.min(previous.length, next.length);
  let index = 0;
  while (index < limit && previous[index] === next[index]) index++;
  return index;
}
