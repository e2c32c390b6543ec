/**
 * The proxy's parse of request bodies: a body that repeats a recent body of the same user with new
 * conversation items is read from that body and its new bytes (`appended-body.ts`); any other is
 * parsed whole. Which recent bodies to try is found before anything is parsed (the session key needs
 * the parsed body), from the credential and the body's first bytes: the bytes decide, so trying the
 * wrong one costs a comparison, never a wrong parse.
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from '../core/model/wire-format.js';
import { layoutOf, type ParsedBody, parseAppended, parseObject } from './appended-body.js';
import { HEAP_BYTES_PER_JSON_BYTE, MemoryBudget } from './memory-budget.js';
import { conversationField } from './request-conversation.js';
import { credentialHash } from './session-identity.js';

/** Bodies below this are parsed whole and not kept: parsing them costs about what comparing does. */
const MIN_BYTES = 16 * 1024;
/** The leading bytes that pick the recent bodies to try (the model, the first message's start). */
const PREFIX_BYTES = 4 * 1024;
/** Recent bodies kept per prefix: the parallel sessions of one user that start alike. */
const CANDIDATES = 8;

/**
 * Parses request bodies, reusing the recent bodies they repeat. What is kept is charged to the
 * proxy's memory budget (the bytes and their parse; the parsed objects are shared with the
 * compactors), least recently used evicted first.
 */
export class RecentBodies {
  /** `onRead` hears how each body of {@link MIN_BYTES} or more was read (the proxy's stats). */
  constructor(
    private readonly onRead?: (how: 'incremental' | 'whole') => void,
    private readonly budget: MemoryBudget = new MemoryBudget(),
  ) {}

  private readonly recent = new Map<string, Recent>();

  /** The body of a request to `api` as a JSON object, or undefined when it is not one. */
  parse(api: WireFormat, raw: Buffer, headers: IncomingHttpHeaders): Record<string, unknown> | undefined {
    if (raw.length < MIN_BYTES) return parseObject(raw);
    const field = conversationField(api);
    const key = `${api}:${credentialHash(headers)}:${hash('sha1', raw.subarray(0, PREFIX_BYTES), 'hex')}`;
    const recent = this.recent.get(key) ?? { bodies: [], notCompact: 0 };
    for (const [index, candidate] of recent.bodies.entries()) {
      const parsed = parseAppended(candidate, raw, field);
      if (parsed === undefined) continue;
      this.keep(key, recent, parsed, index);
      this.onRead?.('incremental');
      return parsed.body;
    }
    const body = parseObject(raw);
    if (body === undefined) return undefined;
    this.onRead?.('whole');
    // A client whose bodies are not compact JSON would pay the check on every request for nothing:
    // after a miss it is made again at the 1st, 2nd, 4th, 8th… body, so one odd body costs nothing.
    const { notCompact } = recent;
    const check = (notCompact & (notCompact - 1)) === 0;
    const layout = check ? layoutOf(raw, body, field) : undefined;
    this.keep(
      key,
      { ...recent, notCompact: layout === undefined ? notCompact + 1 : 0 },
      { raw, body, layout },
    );
    return body;
  }

  /** Puts `parsed` first among the key's bodies, in place of the one it was read from. */
  private keep(key: string, recent: Recent, parsed: ParsedBody, replaces?: number): void {
    const others = recent.bodies.filter((_, index) => index !== replaces);
    const bodies = [parsed, ...others].slice(0, CANDIDATES);
    this.recent.set(key, { bodies, notCompact: recent.notCompact });
    const bytes = bodies.reduce((sum, body) => sum + body.raw.length, 0);
    // The bytes themselves (outside the heap) and their parse.
    this.budget.chargeLater(`recent:${key}`, bytes * (1 + HEAP_BYTES_PER_JSON_BYTE), () =>
      this.recent.delete(key),
    );
  }
}

/** The recent bodies of one credential and prefix, and how many bodies in a row were not compact. */
interface Recent {
  bodies: ParsedBody[];
  notCompact: number;
}
