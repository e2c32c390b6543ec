/**
 * The prompt-caching model of the replay: how much of a request the provider could serve from its
 * cache, and what the request is billed.
 *
 * The model is Anthropic's automatic pattern (a cache breakpoint on the last block of every
 * request): each request writes its whole prompt to the cache, and the next request reads from the
 * cache the longest prefix it shares with the previous one. So per request:
 *
 * - cache-read tokens = tokens of the longest common prefix with the previous request, compared at
 *   block granularity (the system prompt, then each message block by block; a message counts whole
 *   only when its role and every block are equal);
 * - cache-write tokens = every other input token of the request;
 * - billed input = read × {@link PriceTable.cacheReadMultiplier} + write ×
 *   {@link PriceTable.cacheWriteMultiplier}, in base-input-token equivalents, times the input price;
 * - output at the output price.
 *
 * Left out: the minimum cacheable length (1,024 tokens on Sonnet) and the 20-block lookback limit.
 * The cache lifetime is the replay's (`replay.ts`, `timing.ts`): after it nothing is read. A request that differs from the previous one
 * before the previous one's end is a prefix rewrite: the cache held for the rest of it is lost.
 */

import type { ContentBlock, Message, SystemPrompt, TokenCounter } from 'agent-compact';
import { countMessageTokens, countSystemTokens } from 'agent-compact/counters';
import { contentBlocks } from 'agent-compact/wire';
import type { PriceTable } from '../proxy/price-table.js';

/** One request as sent: the system prompt and the messages. */
export interface SentRequest {
  system?: SystemPrompt | undefined;
  messages: readonly Message[];
}

/** What {@link commonPrefix} found. */
export interface CommonPrefix {
  /** Tokens of the shared prefix (the cache-read tokens of the next request). */
  tokens: number;
  /** True when the whole previous request is a prefix of the next one (nothing was rewritten). */
  coversPrevious: boolean;
}

/** Counts messages and blocks with one {@link TokenCounter}, caching by object. */
export interface RequestTokenCounter {
  readonly counter: TokenCounter;
  system(system: SystemPrompt | undefined): number;
  message(message: Message): number;
  request(request: SentRequest): number;
}

/** A {@link RequestTokenCounter} over a text counter, caching per message object and per system prompt. */
export function createRequestTokenCounter(counter: TokenCounter): RequestTokenCounter {
  const messageTokens = new WeakMap<Message, number>();
  const systemTokens = new Map<SystemPrompt | undefined, number>();
  function message(value: Message): number {
    let tokens = messageTokens.get(value);
    if (tokens === undefined) {
      tokens = countMessageTokens(value, counter);
      messageTokens.set(value, tokens);
    }
    return tokens;
  }
  function system(value: SystemPrompt | undefined): number {
    let tokens = systemTokens.get(value);
    if (tokens === undefined) {
      tokens = countSystemTokens(value, counter);
      if (systemTokens.size > 1000) systemTokens.clear();
      systemTokens.set(value, tokens);
    }
    return tokens;
  }
  return {
    counter,
    system,
    message,
    request(request) {
      let total = system(request.system);
      for (const item of request.messages) total += message(item);
      return total;
    },
  };
}

const serialized = new WeakMap<object, string>();

function serialize(value: object): string {
  let text = serialized.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialized.set(value, text);
  }
  return text;
}

/** True when two blocks would be sent as the same bytes. */
export function sameBlock(left: ContentBlock, right: ContentBlock): boolean {
  return left === right || serialize(left) === serialize(right);
}

function sameSystem(left: SystemPrompt | undefined, right: SystemPrompt | undefined): boolean {
  if (left === right) return true;
  if (left === undefined || right === undefined) return false;
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * The longest common prefix of two requests at block granularity, in tokens of the next request
 * (see the module comment).
 */
export function commonPrefix(
  previous: SentRequest | undefined,
  next: SentRequest,
  tokens: RequestTokenCounter,
): CommonPrefix {
  if (previous === undefined) return { tokens: 0, coversPrevious: true };
  if (!sameSystem(previous.system, next.system)) return { tokens: 0, coversPrevious: false };
  let total = tokens.system(next.system);
  const limit = Math.min(previous.messages.length, next.messages.length);
  for (let index = 0; index < limit; index++) {
    const before = previous.messages[index]!;
    const after = next.messages[index]!;
    if (before === after) {
      total += tokens.message(after);
      continue;
    }
    const beforeBlocks = contentBlocks(before);
    const afterBlocks = contentBlocks(after);
    let equalBlocks = 0;
    if (before.role === after.role) {
      while (
        equalBlocks < Math.min(beforeBlocks.length, afterBlocks.length) &&
        sameBlock(beforeBlocks[equalBlocks]!, afterBlocks[equalBlocks]!)
      ) {
        equalBlocks++;
      }
    }
    if (equalBlocks === beforeBlocks.length && equalBlocks === afterBlocks.length) {
      total += tokens.message(after);
      continue;
    }
    if (equalBlocks > 0) {
      total += countMessageTokens(
        { role: after.role, content: afterBlocks.slice(0, equalBlocks) },
        tokens.counter,
      );
    }
    // The previous request ended inside this message only if it was its last and every one of its
    // blocks matched; otherwise the next request rewrote part of it.
    const coversPrevious = index === previous.messages.length - 1 && equalBlocks === beforeBlocks.length;
    return { tokens: total, coversPrevious };
  }
  return { tokens: total, coversPrevious: previous.messages.length <= next.messages.length };
}

/** What one request is billed. */
export interface TurnBill {
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Input in base-price token equivalents: read × read multiplier + write × write multiplier. */
  billedInputTokens: number;
  outputTokens: number;
  /** Dollars: billed input at the input price plus output at the output price. */
  cost: number;
}

/** Bills one request under the caching model of this module. */
export function billRequest(
  {
    inputTokens,
    reusedTokens,
    outputTokens,
  }: { inputTokens: number; reusedTokens: number; outputTokens: number },
  prices: PriceTable,
): TurnBill {
  const cacheReadTokens = Math.min(reusedTokens, inputTokens);
  const cacheWriteTokens = inputTokens - cacheReadTokens;
  const billedInputTokens =
    cacheReadTokens * prices.cacheReadMultiplier + cacheWriteTokens * prices.cacheWriteMultiplier;
  const cost =
    (billedInputTokens * prices.inputPerMillion + outputTokens * prices.outputPerMillion) / 1_000_000;
  return { cacheReadTokens, cacheWriteTokens, billedInputTokens, outputTokens, cost };
}
