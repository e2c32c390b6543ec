/**
 * True when two plain-JSON values would serialize to the same JSON, up to key order (properties
 * holding `undefined` count as absent, as `JSON.stringify` drops them). Stops at the first
 * difference, so comparing a state whose history grew costs a length check, not a serialization.
 */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => sameJson(item, right[index]));
  }
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const leftKeys = definedKeys(leftRecord);
  if (leftKeys.length !== definedKeys(rightRecord).length) return false;
  return leftKeys.every((key) => sameJson(leftRecord[key], rightRecord[key]));
}

function definedKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).filter((key) => record[key] !== undefined);
}
