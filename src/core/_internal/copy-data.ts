/**
 * A deep copy of JSON-like data — arrays and plain objects copied, primitives as they are — so a
 * later change to the caller's objects cannot reach the copy. Strings are immutable and shared, not
 * copied: `structuredClone` serialises every character of a history's tool results, where this
 * copies only the objects around them. It walks with a stack of its own, so any depth copies
 * (`structuredClone` overflows the call stack a few thousand levels down); anything but an array
 * or a plain object (a `Date`, a typed array) goes to `structuredClone`.
 */
export function copyData<T>(value: T): T {
  const root: Record<string, unknown> = {};
  const pending: Array<{ from: unknown; into: Record<string | number, unknown>; key: string | number }> = [
    { from: value, into: root, key: 'value' },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { from, into, key } = next;
    if (!isContainer(from)) {
      setField(into, key, typeof from === 'object' && from !== null ? structuredClone(from) : from);
      continue;
    }
    const copy = Array.isArray(from) ? new Array(from.length) : {};
    setField(into, key, copy);
    // Every key goes in now, in order (the stack fills them in reverse): a copy serialises the same.
    for (const [field, item] of Object.entries(from)) {
      setField(copy as Record<string, unknown>, field, undefined);
      pending.push({ from: item, into: copy as Record<string, unknown>, key: field });
    }
  }
  return root.value as T;
}

/** An array or a plain object: what the copy descends into (anything else is copied whole). */
function isContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/** Sets an own field, `__proto__` too (an assignment would change the copy's prototype instead). */
function setField(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
