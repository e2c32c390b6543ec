/**
 * Without `--recall` the model has no `recall` tool, so what the proxy sends must not point at one:
 * the archive ids the core wrote into its own placeholders and summaries are taken out of the
 * request. Only text the core placed is touched — a tool result, input or note that is one of its
 * placeholders (recognized by the core's own reader), and the summary head it writes — so a user
 * who types `recall r12` sends exactly that. The proxy keeps the core's own output for its session
 * state and scrubs only what it sends, so the scrubbed prefix is the same bytes every time.
 */
import { placeholderWithoutRecall } from '../core/_internal/placeholder.js';

/** The identity reminder after a hard summary when the model has no recall tool. */
export const identityWithoutRecall =
  'You are the same agent as before this summary, with the same tools and instructions. The summary above ' +
  'replaces the earlier conversation.';

/** How the core's summary head begins (see the hard layer). */
const SUMMARY_HEAD = '<context_summary recall="';

/** Recall mentions inside a summary head the core wrote: its tag, the ledger's, the model's. */
const summaryPatterns: readonly [RegExp, string][] = [
  [/^<context_summary recall="r\d+">/, '<context_summary>'],
  [/; recall archived results by id when needed\./g, '.'],
  [/; recall r\d+\]/g, ']'],
  [/ \(recall r\d+\)/g, ''],
  [/\brecall r\d+\b/g, 'archived'],
];

/** The request body with the core's recall ids taken out; the same object when it has none. */
export function bodyWithoutRecallIds<T>(body: T): T {
  return scrub(body) as T;
}

/** The JSON text of a request with the core's recall ids taken out (parsed, scrubbed, written). */
export function withoutRecallIds(json: string): string {
  if (!json.includes('recall')) return json;
  const parsed: unknown = JSON.parse(json);
  const scrubbed = scrub(parsed);
  return scrubbed === parsed ? json : JSON.stringify(scrubbed);
}

/** Walks the body's values; a copy is made only along the paths where a string changed. */
function scrub(value: unknown): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  let changed = false;
  const next = entries.map(([key, item]) => {
    const scrubbed = scrub(item);
    changed ||= scrubbed !== item;
    return [key, scrubbed] as const;
  });
  if (!changed) return value;
  return Array.isArray(value) ? next.map(([, item]) => item) : Object.fromEntries(next);
}

/** A string the core wrote, without its recall ids; any other string as it is. */
function scrubText(text: string): string {
  if (!text.includes('recall')) return text;
  if (text.startsWith(SUMMARY_HEAD)) {
    return summaryPatterns.reduce(
      (result, [pattern, replacement]) => result.replace(pattern, replacement),
      text,
    );
  }
  return placeholderWithoutRecall(text) ?? text;
}
