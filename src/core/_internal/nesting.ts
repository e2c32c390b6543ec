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

/** Levels of a too-deep value's path written out. */
const PATH_LEVELS = 6;
