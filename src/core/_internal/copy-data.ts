/**
 * A deep copy of JSON-like data — arrays and plain objects copied, primitives as they are — so a
 * later change to the caller's objects cannot reach the copy. Strings are immutable and shared, not
 * copied: `structuredClone` serialises every character of a history's tool results, where this
 * copies only the objects around them. Past the first levels it walks with a stack of its own, so
 * any depth copies (`structuredClone` overflows the call stack a few thousand levels down);
 * anything but an array or a plain object (a `Date`, a typed array) goes to `structuredClone`.
 */
export function copyData<T>(value: T): T {
  return copyShallow(value, 0) as T;
}

/** Levels copied by plain recursion (faster); anything deeper goes to {@link copyDeep}. */
const RECURSION_LEVELS = 64;

function copyShallow(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= RECURSION_LEVELS) return copyDeep(value);
  if (Array.isArray(value)) return value.map((item) => copyShallow(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key))
      setField(copy, key, copyShallow((value as Record<string, unknown>)[key], depth + 1));
  }
  return copy;
}

/** The same copy with a stack of its own, for values nested deeper than the call stack allows. */
function copyDeep<T>(value: T): T {
  const root = { value: value as unknown };
  const pending: Array<{ from: unknown; into: Record<string | number, unknown>; key: string | number }> = [
    { from: value, into: root, key: 'value' },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { from, into, key } = next;
    if (typeof from !== 'object' || from === null) {
      setField(into, key, from);
      continue;
    }
    if (Array.isArray(from)) {
      const copy: unknown[] = new Array(from.length);
      setField(into, key, copy);
      for (const [index, item] of from.entries())
        pending.push({ from: item, into: copy as never, key: index });
      continue;
    }
    const prototype = Object.getPrototypeOf(from);
    if (prototype !== Object.prototype && prototype !== null) {
      setField(into, key, structuredClone(from));
      continue;
    }
    const copy: Record<string, unknown> = {};
    setField(into, key, copy);
    // The keys go in now, in order (the stack fills them in reverse): a copy serialises the same.
    for (const [field, item] of Object.entries(from)) {
      setField(copy, field, undefined);
      pending.push({ from: item, into: copy, key: field });
    }
  }
  return root.value as T;
}

/** Sets an own field, `__proto__` too (an assignment would change the copy's prototype instead). */
function setField(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
