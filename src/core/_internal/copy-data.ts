/**
 * A deep copy of JSON-like data — arrays and plain objects copied, primitives as they are — so a
 * later change to the caller's objects cannot reach the copy. Strings are immutable and shared, not
 * copied: `structuredClone` serialises every character of a history's tool results, where this
 * copies only the objects around them. It walks with a stack of its own, so any depth copies
 * (`structuredClone` overflows the call stack a few thousand levels down); anything but an array
 * or a plain object (a `Date`, a typed array) goes to `structuredClone`.
 */
export function copyData<T>(value: T): T {
  const root = { value: value as unknown };
  const pending: Array<{ from: unknown; into: Record<string | number, unknown>; key: string | number }> = [
    { from: value, into: root, key: 'value' },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { from, into, key } = next;
    if (typeof from !== 'object' || from === null) {
      into[key] = from;
      continue;
    }
    if (Array.isArray(from)) {
      const copy: unknown[] = new Array(from.length);
      into[key] = copy;
      from.forEach((item, index) => pending.push({ from: item, into: copy as never, key: index }));
      continue;
    }
    const prototype = Object.getPrototypeOf(from);
    if (prototype !== Object.prototype && prototype !== null) {
      into[key] = structuredClone(from);
      continue;
    }
    const copy: Record<string, unknown> = {};
    into[key] = copy;
    // The keys go in now, in order (the stack fills them in reverse): a copy serialises the same.
    for (const [field, item] of Object.entries(from)) {
      copy[field] = undefined;
      pending.push({ from: item, into: copy, key: field });
    }
  }
  return root.value as T;
}
