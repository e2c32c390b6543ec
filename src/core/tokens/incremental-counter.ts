import { knownFingerprint } from '../_internal/fingerprint.js';
import { sameJson } from '../_internal/same-json.js';
import type { Message, SystemPrompt } from '../model/messages.js';
import { countMessageTokens, countSystemTokens } from './message-tokens.js';
import type { TokenCounter } from './token-counter.js';

/** A message counter that remembers what it counted; see {@link createIncrementalCounter}. */
export interface IncrementalCounter {
  /** The text counter underneath. */
  readonly counter: TokenCounter;
  /** Tokens of the system prompt plus every message, from cache where the messages were seen before. */
  count(messages: readonly Message[], system?: SystemPrompt): number;
  /** Tokens of one message (cached per message object). */
  countMessage(message: Message): number;
}

/**
 * A counter for a conversation that grows turn by turn. It caches the count of every message
 * object it sees (in a `WeakMap`, so dropped messages are collected) and remembers the last list it
 * counted with its running totals. Counting that list again after new messages were appended walks
 * the shared prefix comparing references only and tokenizes just the new messages, so a turn costs
 * the new turn, not the whole history.
 *
 * Messages are treated as immutable: a message that changes must be a new object (as the
 * strategies of this library do). Mutating a message in place after it was counted leaves its old
 * count in the cache.
 *
 * @example
 * import type { Message } from 'agent-compact';
 * import { createHeuristicCounter, createIncrementalCounter } from 'agent-compact/counters';
 *
 * const counter = createIncrementalCounter(createHeuristicCounter());
 * const messages: Message[] = [{ role: 'user', content: 'List the files.' }];
 * counter.count(messages, 'You are a coding agent.');
 * messages.push({ role: 'assistant', content: 'Running `ls`.' });
 * counter.count(messages, 'You are a coding agent.'); // tokenizes only the new message
 */
export function createIncrementalCounter(counter: TokenCounter): IncrementalCounter {
  const messageTokens = new WeakMap<Message, number>();
  // The last list counted (its references, copied, since callers push onto their own array) and
  // the running totals: `totals[i]` is the tokens of `counted[0..i]`.
  const counted: Message[] = [];
  const totals: number[] = [];
  let lastSystem: SystemPrompt | undefined;
  let lastSystemTokens = 0;

  function countMessage(message: Message): number {
    let tokens = messageTokens.get(message);
    if (tokens === undefined) {
      tokens = countMessageTokens(message, counter);
      messageTokens.set(message, tokens);
    }
    return tokens;
  }

  function systemTokens(system: SystemPrompt | undefined): number {
    // By content: a caller that sends its request through JSON sends a copy of the same prompt.
    if (system !== lastSystem && !sameJson(system, lastSystem)) {
      lastSystem = system;
      lastSystemTokens = countSystemTokens(system, counter);
    }
    return lastSystemTokens;
  }

  function count(messages: readonly Message[], system?: SystemPrompt): number {
    let shared = 0;
    const limit = Math.min(messages.length, counted.length);
    while (shared < limit && sameMessage(messages[shared]!, counted[shared]!)) {
      counted[shared] = messages[shared]!;
      shared++;
    }
    counted.length = shared;
    totals.length = shared;
    let total = shared === 0 ? 0 : totals[shared - 1]!;
    for (let index = shared; index < messages.length; index++) {
      const message = messages[index]!;
      total += countMessage(message);
      counted.push(message);
      totals.push(total);
    }
    return systemTokens(system) + total;
  }

  return { counter, count, countMessage };
}

/**
 * The same object, or a copy of it whose content fingerprint is already known (a history sent
 * through JSON again, which the anchored counter fingerprints anyway): its count is the same.
 * Nothing is fingerprinted here, so a plain count never pays for it.
 */
function sameMessage(message: Message, counted: Message): boolean {
  if (message === counted) return true;
  const fingerprint = knownFingerprint(message);
  return fingerprint !== undefined && fingerprint === knownFingerprint(counted);
}
