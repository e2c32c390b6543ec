/**
 * Appends what is new in the client's history to what the proxy sent last, so the upstream prefix
 * stays byte-stable between compactions. The client resends its whole history every turn; once
 * compaction has changed it, the proxy's own compacted version is the prefix, and only the client's
 * new messages go after it.
 */
import { createHash } from 'node:crypto';
import { fingerprintJson, shortHash } from './session-identity.js';
import type { ProxySessionState } from './session-store.js';

/** The conversation to compact for this request, and what to remember afterwards. */
export interface SessionInput {
  /** The conversation to hand to the compactor: the client's own, or the sent prefix plus the new tail. */
  conversation: unknown[];
  /** Fingerprint hashes of every client message, computed on first use (a session never compacted needs none). */
  fingerprints: () => string[];
  /** True when the client's history no longer extends what the proxy saw (it rewound or compacted). */
  restarted: boolean;
}

/** Block types that may carry `cache_control` (thinking blocks may not). */
const cacheableBlockTypes = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'search_result',
]);

/**
 * The conversation to compact for `client`, given what the session sent last. `isAnswerItem`
 * tells the model's items from the client's (for a state that ends in recall rounds).
 */
export function sessionInput(
  state: ProxySessionState | undefined,
  client: unknown[],
  isAnswerItem: (item: unknown) => boolean = () => false,
): SessionInput {
  let hashes: string[] | undefined;
  // Index of the first client message with a cache breakpoint, found in the same pass as the hashes.
  let firstBreakpoint = Number.POSITIVE_INFINITY;
  const fingerprints = () => {
    if (hashes === undefined) {
      hashes = client.map((message, index) => {
        const { hash, breakpoint } = hashOf(message);
        if (index < firstBreakpoint && breakpoint) firstBreakpoint = index;
        return hash;
      });
    }
    return hashes;
  };
  const sent = state?.sent;
  if (state === undefined || sent === undefined)
    return { conversation: client, fingerprints, restarted: false };
  // The hashes are taken first in any case: the same pass finds the first cache breakpoint.
  const own = fingerprints();
  const current = isLegacy(state.covered) ? legacyFingerprints(client, state.covered.length) : own;
  if (!extendsPrefix(state.covered, current)) return { conversation: client, fingerprints, restarted: true };
  const coveredCount = state.covered.length;
  const { prefix: proxyOwn, tail } = afterRecall(state, sent, client.slice(coveredCount), isAnswerItem);
  const prefix = firstBreakpoint < coveredCount ? withBreakpointAtEnd(proxyOwn) : proxyOwn;
  return { conversation: [...prefix, ...tail], fingerprints, restarted: false };
}

/**
 * After recall rounds the client's copy of the answer is one joined turn: it gives way to the
 * rounds and the answer as the model wrote them, after any instructions the client put before it
 * (Claude Code's turn-scoped system messages). A client that sends no answer (a retry) gets the
 * prefix without them.
 */
function afterRecall(
  state: ProxySessionState,
  sent: unknown[],
  tail: unknown[],
  isAnswerItem: (item: unknown) => boolean,
): { prefix: unknown[]; tail: unknown[] } {
  const recalled = state.recalled ?? 0;
  if (recalled === 0) return { prefix: sent, tail };
  let start = 0;
  while (start < tail.length && isInstruction(tail[start])) start += 1;
  let end = start;
  while (end < tail.length && isAnswerItem(tail[end])) end += 1;
  const before = sent.slice(0, sent.length - recalled);
  if (end === start) return { prefix: before, tail };
  return {
    prefix: [...before, ...tail.slice(0, start), ...sent.slice(before.length)],
    tail: tail.slice(end),
  };
}

function isInstruction(item: unknown): boolean {
  const role = (item as { role?: unknown } | null)?.role;
  return role === 'system' || role === 'developer';
}

/**
 * The state after sending `sentConversation` for a client history with `fingerprints`; `recalled`:
 * the recall rounds and the answer after it, when the proxy answered recall calls.
 */
export function nextState(
  fingerprints: () => string[],
  clientConversation: unknown[],
  sentConversation: unknown[],
  recalled: unknown[] = [],
): ProxySessionState {
  // While the proxy sends the client's own conversation there is no prefix of its own to check.
  if (sentConversation === clientConversation && recalled.length === 0) return { covered: [] };
  const sent = [...sentConversation, ...recalled].map(withoutCacheControl);
  return { covered: fingerprints(), sent, ...(recalled.length > 0 ? { recalled: recalled.length } : {}) };
}

/**
 * What the proxy sent for the messages a new history shares with a kept one, when the two part
 * after the kept one's last compaction (a fork of it, or the conversation it was forked from):
 * the kept `sent` less the messages after the parting, which went as the client wrote them.
 * Undefined when they share nothing or part inside what compaction changed.
 */
export function sharedState(
  state: ProxySessionState | undefined,
  fingerprints: readonly string[],
): Pick<ProxySessionState, 'covered' | 'sent'> | undefined {
  const sent = state?.sent;
  if (state === undefined || sent === undefined || (state.recalled ?? 0) > 0) return undefined;
  const { covered } = state;
  if (isLegacy(covered)) return undefined;
  let shared = 0;
  while (shared < covered.length && covered[shared] === fingerprints[shared]) shared += 1;
  const after = covered.length - shared;
  if (shared === 0 || after === 0 || after >= sent.length) return undefined;
  // Each message after the parting must be the client's own, as sent: then what precedes it in
  // `sent` stands for exactly the shared messages.
  for (let back = 1; back <= after; back += 1) {
    if (hashOf(sent[sent.length - back]).hash !== covered[covered.length - back]) return undefined;
  }
  return { covered: covered.slice(0, shared), sent: sent.slice(0, sent.length - after) };
}

function extendsPrefix(covered: readonly string[], fingerprints: readonly string[]): boolean {
  if (fingerprints.length < covered.length) return false;
  for (let index = 0; index < covered.length; index += 1) {
    if (covered[index] !== fingerprints[index]) return false;
  }
  return true;
}

/**
 * Each message's hash, and whether it holds a cache breakpoint, by message object: the proxy hands
 * a session's unchanged messages back as the same objects (`request-reuse.ts`), so a compacted
 * session hashes only its new messages on each request, not its whole history.
 */
const knownHashes = new WeakMap<object, { hash: string; breakpoint: boolean }>();

function hashOf(message: unknown): { hash: string; breakpoint: boolean } {
  const known = typeof message === 'object' && message !== null ? knownHashes.get(message) : undefined;
  if (known) return known;
  const json = JSON.stringify(message);
  const computed = { hash: messageHash(json), breakpoint: json.includes('"cache_control"') };
  if (typeof message === 'object' && message !== null) knownHashes.set(message, computed);
  return computed;
}

/** A message's fingerprint: the proxy's one hash, {@link shortHash}. */
function messageHash(json: string): string {
  return shortHash(fingerprintJson(json));
}

/**
 * Fingerprints a store kept from before the proxy used {@link shortHash} are SHA-1 in base64 (28
 * characters): still read, so a stored session goes on instead of restarting; the next save writes
 * the new ones.
 */
const LEGACY_FINGERPRINT_LENGTH = 28;

function isLegacy(covered: readonly string[]): boolean {
  return covered.length > 0 && covered[0]!.length === LEGACY_FINGERPRINT_LENGTH;
}

/** The old fingerprints of the client's first `count` messages (all a prefix check needs). */
function legacyFingerprints(client: readonly unknown[], count: number): string[] {
  return client.slice(0, count).map((message) =>
    createHash('sha1')
      .update(fingerprintJson(JSON.stringify(message)))
      .digest('base64'),
  );
}

/**
 * The sent prefix with one breakpoint on its last cacheable block: the client had breakpoints in
 * the part the proxy replaced, and the provider should still cache the prefix it has seen before.
 */
function withBreakpointAtEnd(sent: readonly unknown[]): unknown[] {
  const result = [...sent];
  for (let index = result.length - 1; index >= 0; index -= 1) {
    const message = result[index] as { content?: unknown } | undefined;
    const content = message?.content;
    if (typeof content === 'string' && content !== '') {
      result[index] = { ...message, content: [{ type: 'text', text: content, cache_control: ephemeral() }] };
      return result;
    }
    if (!Array.isArray(content)) continue;
    for (let blockIndex = content.length - 1; blockIndex >= 0; blockIndex -= 1) {
      const block = content[blockIndex] as { type?: unknown; text?: unknown } | undefined;
      if (!block || !cacheableBlockTypes.has(String(block.type))) continue;
      if (block.type === 'text' && block.text === '') continue;
      const blocks = [...content];
      blocks[blockIndex] = { ...block, cache_control: ephemeral() };
      result[index] = { ...message, content: blocks };
      return result;
    }
  }
  return result;
}

function ephemeral(): { type: 'ephemeral' } {
  return { type: 'ephemeral' };
}

/** A message without `cache_control` on it or its blocks (a copy only when there was one). */
function withoutCacheControl(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return message;
  const record = message as Record<string, unknown>;
  // Only top-level blocks carry breakpoints to drop: a look at each block, not a serialization.
  if (!Array.isArray(record.content) || !record.content.some(hasCacheControl)) return message;
  const content = record.content.map((block: unknown) => {
    if (!hasCacheControl(block)) return block;
    const { cache_control: _dropped, ...rest } = block as Record<string, unknown>;
    return rest;
  });
  return { ...record, content };
}

function hasCacheControl(block: unknown): boolean {
  return typeof block === 'object' && block !== null && 'cache_control' in block;
}
