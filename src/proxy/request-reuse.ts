/**
 * Gives a request the parsed objects of its session's previous request wherever the client sent
 * the same thing again. An agent resends its whole history, system prompt and tools every turn,
 * and the proxy parses each body afresh; the compactor caches its work per object (token counts of
 * messages, tools and the system prompt, fingerprints, the ledger's facts, the Gemini reader's
 * conversion), so with the previous objects a request costs what is new in it instead of all of it.
 * Comparing two parsed values is much cheaper than what the compactor does with an object it has
 * not seen (serializing and hashing it, tokenizing it).
 */

/**
 * Replaces, in place, the top-level fields of `body` equal to the same field of `previous` with
 * the previous value, and in the conversation (`conversationField`, which grows) each leading
 * message equal to the one at its index. Equal means the same JSON text, so the body still
 * serializes to the client's bytes; the body is the proxy's own parse, nobody else's.
 */
export function reuseUnchanged(
  previous: Record<string, unknown> | undefined,
  body: Record<string, unknown>,
  conversationField: string,
): void {
  if (previous === undefined) return;
  try {
    for (const [key, value] of Object.entries(body)) {
      const before = previous[key];
      if (key === conversationField && Array.isArray(before) && Array.isArray(value)) {
        reuseLeadingMessages(before, value);
      } else if (before !== value && sameJsonText(before, value)) {
        body[key] = before;
      }
    }
  } catch {
    // A value nested deeper than the stack allows: what was compared so far stays replaced.
  }
}

/**
 * Replaces each leading message of `conversation` equal to the message at the same index of
 * `previous` with that previous object; stops at the first that differs. Returns how many.
 */
export function reuseLeadingMessages(previous: readonly unknown[], conversation: unknown[]): number {
  const limit = Math.min(previous.length, conversation.length);
  let index = 0;
  while (index < limit && sameJsonText(previous[index], conversation[index])) {
    conversation[index] = previous[index];
    index += 1;
  }
  return index;
}

/**
 * True when two parsed JSON values serialize to the same text: equal, with object keys in the same
 * order (unlike the core's order-blind comparison, since the proxy may send the client's bytes).
 */
export function sameJsonText(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sameItems(a, b);
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    if (key !== otherKeys[index]) return false;
    if (!sameJsonText((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) {
    if (!sameJsonText(a[index], b[index])) return false;
  }
  return true;
}
