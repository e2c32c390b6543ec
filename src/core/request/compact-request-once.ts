import { createCompactor } from '../compactor.js';
import type { CompactorOptions, CompactRequestOptions, CompactRequestResult } from '../compactor-options.js';

/**
 * The one-call use for a whole request body: compacts its conversation once with a fresh
 * compactor and returns the same body with only the conversation (and its cache breakpoints)
 * changed. For an agent loop or a proxy prefer `createCompactor(...).compactRequest`, which keeps
 * state between calls.
 *
 * @example
 * const { body: toSend, layer } = await compactRequest(requestBody, { contextWindow: 200_000 });
 */
export async function compactRequest<Body extends object>(
  body: Body,
  options: CompactRequestOptions & CompactorOptions = {},
): Promise<CompactRequestResult<Body>> {
  const { format, usage, signal, force, focus, ...compactorOptions } = options;
  return createCompactor(compactorOptions).compactRequest(body, {
    ...(format === undefined ? {} : { format }),
    ...(usage === undefined ? {} : { usage }),
    ...(signal === undefined ? {} : { signal }),
    ...(force === undefined ? {} : { force }),
    ...(focus === undefined ? {} : { focus }),
  });
}
