/**
 * Telling a content block or part of a type the API does not take, so the scripted server refuses
 * it (an OpenAI `input_file` sent to Anthropic, a `reasoning` block sent to Chat Completions) as
 * the real API does, with a 400. Each format's request checks (./wire/<format>/) list their types.
 */

/** A content type the API does not take: where, and what it is. */
export interface UnknownContentType {
  path: string;
  type: string;
}

/** `block` when its `type` is a string `allowed` lacks. */
export function unknownIn(
  block: unknown,
  allowed: ReadonlySet<string>,
  path: string,
): UnknownContentType | undefined {
  const type = (block as { type?: unknown } | null)?.type;
  return typeof type === 'string' && !allowed.has(type) ? { path, type } : undefined;
}
