/**
 * Parses a request body that repeats an earlier body with items added to (or the last few replaced
 * at the end of) its conversation, reading only the bytes that are new. An agent resends its whole
 * history, system prompt and tools every turn, and `JSON.parse` of all of it costs about as much as
 * everything else the proxy does for a request; the rest of the body becomes the earlier body's
 * objects, which the compactor's per-object caches already know.
 *
 * Bytes decide, not trust. An earlier body serves only when it serializes back to exactly its own
 * bytes (compact JSON, as agents' SDKs send), so the offset of each of its conversation items is
 * known. A new body is read this way only when its bytes are the earlier body's up to the end of
 * some item and again from the conversation's closing bracket to the end, with nothing but whole
 * JSON values between: such bytes parse to exactly that. Anything else is parsed whole.
 */

/** A parsed request body and where its conversation's items lie in its bytes. */
export interface ParsedBody {
  raw: Buffer;
  body: Record<string, unknown>;
  /** Undefined when the bytes are not the compact serialization of the body. */
  layout: ItemLayout | undefined;
}

/** Byte offsets in a body: just after the conversation's `[`, and just after each of its items. */
export interface ItemLayout {
  open: number;
  ends: number[];
}

const COMMA = 0x2c;

/** The body of `raw` as a JSON object, or undefined when it is not one. */
export function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the items of `body[field]` lie in `raw`, when `raw` is exactly the compact serialization of
 * `body` (one `JSON.stringify` of it, paid once per body parsed whole); undefined otherwise.
 */
export function layoutOf(raw: Buffer, body: Record<string, unknown>, field: string): ItemLayout | undefined {
  const pieces: string[] = ['{'];
  let bytes = 1;
  let layout: ItemLayout | undefined;
  const add = (text: string) => {
    pieces.push(text);
    bytes += Buffer.byteLength(text);
  };
  for (const [index, key] of Object.keys(body).entries()) {
    // Assigning `__proto__` would not make an own property again: never rebuilt.
    if (key === '__proto__') return undefined;
    add(`${index === 0 ? '' : ','}${JSON.stringify(key)}:`);
    const value = body[key];
    if (key !== field || !Array.isArray(value)) {
      add(JSON.stringify(value));
      continue;
    }
    add('[');
    layout = { open: bytes, ends: [] };
    for (const [position, item] of value.entries()) {
      add(`${position === 0 ? '' : ','}${JSON.stringify(item)}`);
      layout.ends.push(bytes);
    }
    add(']');
  }
  add('}');
  if (bytes !== raw.length || !raw.equals(Buffer.from(pieces.join('')))) return undefined;
  return layout;
}

/**
 * `raw` parsed from `previous` and its new bytes, or undefined when `raw` is not `previous` with
 * items added or replaced at the end of `field` (then it is parsed whole).
 */
export function parseAppended(previous: ParsedBody, raw: Buffer, field: string): ParsedBody | undefined {
  const { layout } = previous;
  const items = previous.body[field];
  if (layout === undefined || !Array.isArray(items)) return undefined;
  const close = layout.ends.at(-1) ?? layout.open;
  // The new items end where the earlier body's closing bracket and all after it begin again.
  const middleEnd = raw.length - (previous.raw.length - close);
  if (middleEnd < layout.open) return undefined;
  if (raw.compare(previous.raw, close, previous.raw.length, middleEnd, raw.length) !== 0) return undefined;
  const kept = keptItems(previous.raw, raw, layout, Math.min(close, middleEnd));
  if (kept < 0) return undefined;
  const start = kept === 0 ? layout.open : (layout.ends[kept - 1] as number);
  let middle = raw.subarray(start, middleEnd);
  const afterComma = kept > 0 && middle.length > 0;
  if (afterComma) {
    if (middle[0] !== COMMA) return undefined;
    middle = middle.subarray(1);
  }
  let added: unknown[];
  try {
    added = JSON.parse(`[${middle.toString('utf8')}]`) as unknown[];
  } catch {
    return undefined;
  }
  // `item,` and nothing after it is not JSON.
  if (afterComma && added.length === 0) return undefined;
  const conversation = [...items.slice(0, kept), ...added];
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(previous.body)) body[key] = key === field ? conversation : previous.body[key];
  const newStart = afterComma ? start + 1 : start;
  return { raw, body, layout: extendedLayout(layout, kept, newStart, middle, added) };
}

/**
 * How many leading items `raw` shares byte for byte with `previous` (whose bytes are the same up to
 * `limit` at most); -1 when they differ before the conversation's first item.
 */
function keptItems(previous: Buffer, raw: Buffer, layout: ItemLayout, limit: number): number {
  const same = firstDifference(previous, raw, limit);
  if (same < layout.open) return -1;
  // The last item ending at or before the first difference.
  let low = 0;
  let high = layout.ends.length;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((layout.ends[middle - 1] as number) <= same) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The index of the first byte where `a` and `b` differ within `length`, or `length`. */
function firstDifference(a: Buffer, b: Buffer, length: number): number {
  if (a.compare(b, 0, length, 0, length) === 0) return length;
  // Halve the stretch that differs: about twice the prefix compared in all, natively.
  let low = 0;
  let high = length;
  while (high - low > 64) {
    const middle = (low + high) >>> 1;
    if (a.compare(b, low, middle, low, middle) === 0) low = middle;
    else high = middle;
  }
  while (low < high && a[low] === b[low]) low += 1;
  return low;
}

/** The layout after the new items, when their bytes are their compact serialization. */
function extendedLayout(
  layout: ItemLayout,
  kept: number,
  start: number,
  middle: Buffer,
  added: unknown[],
): ItemLayout | undefined {
  const texts = added.map((item) => JSON.stringify(item));
  if (!middle.equals(Buffer.from(texts.join(',')))) return undefined;
  const ends = layout.ends.slice(0, kept);
  let offset = start;
  for (const [index, text] of texts.entries()) {
    offset += Buffer.byteLength(text) + (index === 0 ? 0 : 1);
    ends.push(offset);
  }
  return { open: layout.open, ends };
}
