/**
 * Parses a request body that repeats an earlier body with items added to (or the last few replaced
 * at the end of) its conversation, reading only the bytes that are new. An agent resends its whole
 * history, system prompt and tools every turn, and `JSON.parse` of all of it costs about as much as
 * everything else the proxy does for a request; the rest of the body becomes the earlier body's
 * objects, which the compactor's per-object caches already know.
 *
 * Bytes decide, not trust. An earlier body serves only when it serializes back to exactly its own
 * bytes (compact JSON, as agents' SDKs send), so the offset of each conversation item and of each
 * field after the conversation is known. A new body is read this way only when its bytes are the
 * earlier body's up to the end of some item, then whole JSON values, then the earlier body's bytes
 * from the conversation's closing bracket on; or, for a client whose last fields change every turn
 * (Codex writes `client_metadata` from a hash map, in a new order each time), the earlier bytes up
 * to the last field or past the first, and whole fields after them. Such bytes have one parse, and
 * it is the one built here; anything else is parsed whole.
 */
import { isPlainObject } from 'agent-compact/internal';

/** A parsed request body and where its conversation's items lie in its bytes. */
export interface ParsedBody {
  raw: Buffer;
  body: Record<string, unknown>;
  /** Undefined when the bytes are not the compact serialization of the body. */
  layout: ItemLayout | undefined;
}

/**
 * Byte offsets in a body: just after the conversation's `[`, just after each of its items, and
 * just after each field that follows the conversation.
 */
export interface ItemLayout {
  open: number;
  ends: number[];
  tail: number[];
  /**
   * The body's field names in the order of its bytes. `Object.keys` puts integer names first, so it
   * is not that order once a field named `"1"` came after the conversation.
   */
  keys: string[];
}

const COMMA = 0x2c;
const CLOSING_BRACE = 0x7d;

/** The body of `raw` as a JSON object, or undefined when it is not one. */
export function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the items of `body[field]` and the fields after it lie in `raw`, when `raw` is exactly the
 * compact serialization of `body` (one `JSON.stringify` of it, paid once per body parsed whole) with
 * its fields in the order `keys`.
 */
export function layoutOf(
  raw: Buffer,
  body: Record<string, unknown>,
  field: string,
  keys: string[] = Object.keys(body),
): ItemLayout | undefined {
  try {
    return compactLayout(raw, body, field, keys);
  } catch {
    // `JSON.stringify` runs out of stack on a value nested thousands deep: such a body is read whole.
    return undefined;
  }
}

function compactLayout(
  raw: Buffer,
  body: Record<string, unknown>,
  field: string,
  keys: string[],
): ItemLayout | undefined {
  const pieces: string[] = ['{'];
  let bytes = 1;
  let layout: ItemLayout | undefined;
  const add = (text: string) => {
    pieces.push(text);
    bytes += Buffer.byteLength(text);
  };
  for (const [index, key] of keys.entries()) {
    // Assigning `__proto__` would not make an own property again: never rebuilt.
    if (key === '__proto__') return undefined;
    add(`${index === 0 ? '' : ','}${JSON.stringify(key)}:`);
    const value = body[key];
    if (key === field && Array.isArray(value)) {
      layout = { open: bytes + 1, ends: [], tail: [], keys };
      add('[');
      for (const [position, item] of value.entries()) {
        add(`${position === 0 ? '' : ','}${JSON.stringify(item)}`);
        layout.ends.push(bytes);
      }
      add(']');
      continue;
    }
    add(JSON.stringify(value));
    layout?.tail.push(bytes);
  }
  add('}');
  if (bytes !== raw.length || !raw.equals(Buffer.from(pieces.join('')))) return undefined;
  return layout;
}

/** Where the new items end in a body and what follows them that the earlier body did not have. */
interface TailSplit {
  /** The offset of the conversation's `]`. */
  itemsEnd: number;
  /** How many fields after the conversation are the earlier body's bytes. */
  unchanged: number;
  /** The fields after those, `,"name":value` each, without the closing brace. */
  rest: Buffer;
}

/**
 * `raw` parsed from `previous` and its new bytes, or undefined when `raw` is not `previous` with
 * items added or replaced at the end of `field` (then it is parsed whole).
 */
export function parseAppended(previous: ParsedBody, raw: Buffer, field: string): ParsedBody | undefined {
  try {
    return readAppended(previous, raw, field);
  } catch {
    // Out of stack in `JSON.stringify` (new items nested thousands deep): parsed whole instead.
    return undefined;
  }
}

function readAppended(previous: ParsedBody, raw: Buffer, field: string): ParsedBody | undefined {
  const { layout, body: earlier } = previous;
  const items = earlier[field];
  if (layout === undefined || !Array.isArray(items)) return undefined;
  const close = layout.ends.at(-1) ?? layout.open;
  const kept = keptItems(previous.raw, raw, layout, Math.min(close, raw.length));
  if (kept < 0) return undefined;
  const start = kept === 0 ? layout.open : (layout.ends[kept - 1] as number);
  const split = tailSplit(previous, raw, close, start);
  if (split === undefined) return undefined;
  const read = readItems(raw.subarray(start, split.itemsEnd), kept > 0);
  const changed = split.rest.length === 0 ? {} : readFields(split.rest);
  if (read === undefined || changed === undefined) return undefined;
  const unchangedKeys = layout.keys.slice(0, layout.keys.indexOf(field) + 1 + split.unchanged);
  const body: Record<string, unknown> = {};
  for (const key of unchangedKeys)
    body[key] = key === field ? [...items.slice(0, kept), ...read.added] : earlier[key];
  // Assigned after: a repeated name keeps its first place and takes the last value, as in JSON.parse.
  Object.assign(body, changed);
  const itemsLayout = extendedLayout(layout, kept, read.start + start, read.text, read.added);
  const repeated = Object.keys(changed).some((key) => unchangedKeys.includes(key));
  const keys = [...unchangedKeys, ...Object.keys(changed)];
  return {
    raw,
    body,
    layout:
      itemsLayout && !repeated
        ? withTail({ ...itemsLayout, keys }, layout, split, close, changed)
        : undefined,
  };
}

/**
 * Where the conversation ends in `raw`: the earlier body's bytes from its closing bracket to the
 * end, or failing that to its last field or past its first field (the rest parsed as fields).
 */
function tailSplit(previous: ParsedBody, raw: Buffer, close: number, start: number): TailSplit | undefined {
  const { tail } = previous.layout as ItemLayout;
  const whole = raw.length - (previous.raw.length - close);
  if (whole >= start && raw.compare(previous.raw, close, previous.raw.length, whole, raw.length) === 0) {
    return { itemsEnd: whole, unchanged: tail.length, rest: raw.subarray(0, 0) };
  }
  if (raw[raw.length - 1] !== CLOSING_BRACE) return undefined;
  for (const unchanged of new Set([tail.length - 1, 1])) {
    if (unchanged < 1 || unchanged >= tail.length) continue;
    const same = previous.raw.subarray(close, tail[unchanged - 1]);
    const at = raw.indexOf(same, start);
    if (at < 0) continue;
    const rest = raw.subarray(at + same.length, raw.length - 1);
    if (rest.length === 0 || rest[0] === COMMA) return { itemsEnd: at, unchanged, rest };
  }
  return undefined;
}

/** The items in `bytes` (after a comma when `afterItem`), or undefined when they are not whole values. */
function readItems(
  bytes: Buffer,
  afterItem: boolean,
): { added: unknown[]; text: Buffer; start: number } | undefined {
  const comma = afterItem && bytes.length > 0;
  if (comma && bytes[0] !== COMMA) return undefined;
  const text = comma ? bytes.subarray(1) : bytes;
  let added: unknown[];
  try {
    added = JSON.parse(`[${text.toString('utf8')}]`) as unknown[];
  } catch {
    return undefined;
  }
  // `item,` and nothing after it is not JSON.
  if (comma && added.length === 0) return undefined;
  return { added, text, start: comma ? 1 : 0 };
}

/** The fields in `,"name":value…`, or undefined when they are not whole fields. */
function readFields(rest: Buffer): Record<string, unknown> | undefined {
  const fields = parseObject(Buffer.concat([Buffer.from('{'), rest.subarray(1), Buffer.from('}')]));
  if (fields === undefined || Object.keys(fields).length === 0 || Object.hasOwn(fields, '__proto__')) {
    return undefined;
  }
  return fields;
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

/** The item offsets after the new items, when their bytes are their compact serialization. */
function extendedLayout(
  layout: ItemLayout,
  kept: number,
  start: number,
  text: Buffer,
  added: unknown[],
): ItemLayout | undefined {
  const texts = added.map((item) => JSON.stringify(item));
  if (!text.equals(Buffer.from(texts.join(',')))) return undefined;
  const ends = layout.ends.slice(0, kept);
  let offset = start;
  for (const [index, item] of texts.entries()) {
    offset += Buffer.byteLength(item) + (index === 0 ? 0 : 1);
    ends.push(offset);
  }
  return { open: layout.open, ends, tail: [], keys: layout.keys };
}

/** The field offsets after the conversation, when the changed fields are compact too. */
function withTail(
  items: ItemLayout,
  earlier: ItemLayout,
  split: TailSplit,
  close: number,
  changed: Record<string, unknown>,
): ItemLayout | undefined {
  const shift = split.itemsEnd - close;
  const tail = earlier.tail.slice(0, split.unchanged).map((end) => end + shift);
  let offset =
    split.itemsEnd + (split.unchanged === 0 ? 1 : (earlier.tail[split.unchanged - 1] as number) - close);
  const texts = Object.entries(changed).map(
    ([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`,
  );
  if (!split.rest.equals(Buffer.from(texts.join('')))) return undefined;
  for (const text of texts) {
    offset += Buffer.byteLength(text);
    tail.push(offset);
  }
  return { ...items, tail };
}
