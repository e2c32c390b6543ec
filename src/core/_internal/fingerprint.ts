import type { Message, SystemPrompt } from '../model/messages.js';

// Two FNV-1a passes with different offsets: about 64 bits, so two different messages of one
// session practically never share a fingerprint.
const FNV_OFFSET_A = 0x811c9dc5;
const FNV_OFFSET_B = 0x01000193 ^ 0x5bd1e995;
const FNV_PRIME = 0x01000193;

const cache = new WeakMap<object, string>();

/** A short content hash of a text (stable across processes). */
export function fingerprintText(text: string): string {
  let first = FNV_OFFSET_A;
  let second = FNV_OFFSET_B;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, FNV_PRIME);
    second = Math.imul(second ^ code, FNV_PRIME) ^ (second >>> 15);
  }
  return `${(first >>> 0).toString(36)}.${(second >>> 0).toString(36)}.${text.length.toString(36)}`;
}

/**
 * The content hash of a message, cached per message object (messages are treated as immutable).
 * Two processes holding equal messages get equal fingerprints, which is how a restored compactor
 * recognises the history it returned before it moved.
 */
export function fingerprintMessage(message: Message): string {
  let fingerprint = cache.get(message);
  if (fingerprint === undefined) {
    fingerprint = fingerprintText(JSON.stringify(message));
    cache.set(message, fingerprint);
  }
  return fingerprint;
}

/** The fingerprint of a message when it was computed already, else undefined (nothing is computed). */
export function knownFingerprint(message: Message): string | undefined {
  return cache.get(message);
}

/** Fingerprints of every message, in order. */
export function fingerprintMessages(messages: readonly Message[]): string[] {
  return messages.map(fingerprintMessage);
}

/** The content hash of a system prompt's text (cache markers ignored, as the token count does). */
export function fingerprintSystem(system: SystemPrompt | undefined): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return fingerprintText(system);
  return fingerprintText(system.map((block) => block.text).join('\u0000'));
}

/** True when `messages` starts with messages whose fingerprints are `prefix`. */
export function startsWithFingerprints(messages: readonly Message[], prefix: readonly string[]): boolean {
  if (messages.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (fingerprintMessage(messages[index]!) !== prefix[index]) return false;
  }
  return true;
}

/** What identifies a request's fixed part across processes: its system prompt and its tools' size. */
export function requestKey(system: SystemPrompt | undefined, toolTokens: number): string {
  return `${fingerprintSystem(system)}+${toolTokens}`;
}
