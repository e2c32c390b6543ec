/** Counting `cache_control` marks, which the scripted server's answers and its 4-mark limit read. */

/** How many objects in `value` (at any depth) carry a `cache_control`. */
export function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheControl(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const own = (value as { cache_control?: unknown }).cache_control ? 1 : 0;
  return own + Object.values(value).reduce((sum: number, item) => sum + countCacheControl(item), 0);
}
