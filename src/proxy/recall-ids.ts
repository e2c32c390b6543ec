/**
 * Without `--recall` the model has no `recall` tool, so what the proxy sends must not point at one:
 * the archive ids the core writes into placeholders and summaries are taken out of the request
 * text. The proxy keeps the core's own output for its session state and scrubs only what it sends,
 * so the scrubbed prefix is the same bytes every time.
 */

/** The identity reminder after a hard summary when the model has no recall tool. */
export const identityWithoutRecall =
  'You are the same agent as before this summary, with the same tools and instructions. The summary above ' +
  'replaces the earlier conversation.';

// Each pattern matches text inside a JSON string (quotes are escaped there as \").
const recallPatterns: readonly [RegExp, string][] = [
  [/; recall r\d+\]/g, ']'],
  [/<context_summary recall=\\"r\d+\\">/g, '<context_summary>'],
  [/; recall archived results by id when needed\./g, '.'],
  [/ \(recall r\d+\)/g, ''],
  [/\brecall r\d+\b/g, 'archived'],
];

/** The JSON text of a request with every recall id taken out. */
export function withoutRecallIds(json: string): string {
  if (!json.includes('recall')) return json;
  let result = json;
  for (const [pattern, replacement] of recallPatterns) result = result.replace(pattern, replacement);
  return result;
}
