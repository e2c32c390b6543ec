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
    // Past the first levels the path stops growing: it names where the nesting starts.
    const named = (step: string) => (depth < PATH_LEVELS ? `${path}${step}` : path);
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`[${index}]`, item])
      : Object.entries(value).map(([key, item]) => [`.${key}`, item]);
    for (const [step, item] of children) pending.push({ value: item, path: named(step), depth: depth + 1 });
  }
  return undefined;
}

/**
 * The path of the first value in `root` that JSON cannot hold — a cycle, a `bigint`, a function or
 * a symbol — and what it is, or undefined; looked for down to `maxDepth` levels. A request is JSON on the wire; such a value can only
 * come from a caller's own objects.
 */
export function nonJsonValue(
  root: unknown,
  rootPath: string,
  maxDepth: number,
): { path: string; kind: string } | undefined {
  const ancestors = new Set<object>();
  const visit = (value: unknown, path: string): { path: string; kind: string } | undefined => {
    if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol')
      return { path, kind: `a ${typeof value}` };
    if (typeof value !== 'object' || value === null) return undefined;
    if (ancestors.has(value)) return { path, kind: 'a cycle' };
    // Deeper than any input is read: a cycle shows long before, and the recursion stays short.
    if (ancestors.size >= maxDepth) return undefined;
    ancestors.add(value);
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`[${index}]`, item])
      : Object.entries(value).map(([key, item]) => [`.${key}`, item]);
    for (const [step, item] of children) {
      const found = visit(item, `${path}${step}`);
      if (found) return found;
    }
    ancestors.delete(value);
    return undefined;
  };
  return visit(root, rootPath);
}

/** Levels of a too-deep value's path written out. */
const PATH_LEVELS = 6;
