/**
 * The path of the first value in `root` nested deeper than `maxDepth` arrays and objects
 * (`messages[1].content[0].input.a.a…` shortened to its first levels), or undefined. Walks with a
 * stack of its own: the depth it looks for is the one that overflows the call stack.
 */
export function tooDeepPath(root: unknown, rootPath: string, maxDepth: number): string | undefined {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [
    { value: root, path: rootPath, depth: 0 },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return `${path}…`;
    // Past the first levels the path only grows: it names where the nesting starts.
    const named = (step: string) => (depth < PATH_LEVELS ? `${path}${step}` : path);
    if (Array.isArray(value))
      value.forEach((item, index) =>
        pending.push({ value: item, path: named(`[${index}]`), depth: depth + 1 }),
      );
    else
      for (const [key, item] of Object.entries(value))
        pending.push({ value: item, path: named(`.${key}`), depth: depth + 1 });
  }
  return undefined;
}

/** Levels of a too-deep value's path written out. */
const PATH_LEVELS = 6;
