/**
 * The one record the proxy keeps of each session's last request: its bytes, where its conversation's
 * items lie in them, and its parse. Two readers share it. The incremental read (`appended-body.ts`)
 * reads a body that repeats a recent one from its new bytes; which recent ones to try is found
 * before anything is parsed (the session key needs the parsed body), from the credential and the
 * body's first bytes: the bytes decide, so trying the wrong one costs a comparison, never a wrong
 * parse. The unchanged-body reuse (`request-reuse.ts`) gives the session's next request these
 * objects wherever it sent the same thing again. What a record holds is charged once, by the
 * session's entry in the memory budget (`session-compactors.ts`).
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from 'agent-compact/wire';
import { layoutOf, type ParsedBody, parseAppended, parseObject } from './appended-body.js';
import { HEAP_BYTES_PER_JSON_BYTE } from './memory-budget.js';
import { conversationField } from './request-conversation.js';
import { reuseUnchanged } from './request-reuse.js';
import { credentialHash } from './session-identity.js';

/** Bodies below this are parsed whole: parsing them costs about what comparing does. */
const MIN_BYTES = 16 * 1024;
/** The leading bytes that pick the recent bodies to try (the model, the first message's start). */
const PREFIX_BYTES = 4 * 1024;
/** Sessions tried per prefix: the parallel sessions of one user that start alike. */
const CANDIDATES = 8;

/** A request body as the proxy read it, before its session is known. */
export interface BodyRead extends ParsedBody {
  /** The credential and first bytes that pick it to read the next body from; none for a small body. */
  prefix: string | undefined;
  /** How many bodies in a row of this prefix were not compact JSON (see {@link SessionStates.read}). */
  notCompact: number;
}

/** The sessions kept under one prefix, most recent first, and their bodies' compactness streak. */
interface Prefix {
  sessions: string[];
  notCompact: number;
}

/** Every session's last request; bytes, layout and parse in one {@link BodyRead} each. */
export class SessionStates {
  private readonly states = new Map<string, BodyRead>();
  private readonly prefixes = new Map<string, Prefix>();

  /** `onRead` hears how each body of {@link MIN_BYTES} or more was read (the proxy's stats). */
  constructor(private readonly onRead?: (how: 'incremental' | 'whole') => void) {}

  /**
   * The body of a request to `api`, or undefined when it is not a JSON object; `url` is the
   * request's own, for a credential sent in its query (Gemini's `?key=`).
   */
  read(api: WireFormat, raw: Buffer, headers: IncomingHttpHeaders, url?: URL): BodyRead | undefined {
    if (raw.length < MIN_BYTES) {
      const body = parseObject(raw);
      return body && { raw, body, layout: undefined, prefix: undefined, notCompact: 0 };
    }
    const field = conversationField(api);
    const prefix = `${api}:${credentialHash(headers, url)}:${hash('sha1', raw.subarray(0, PREFIX_BYTES), 'hex')}`;
    const known = this.prefixes.get(prefix) ?? { sessions: [], notCompact: 0 };
    for (const sessionKey of known.sessions) {
      const candidate = this.states.get(sessionKey);
      const parsed = candidate && parseAppended(candidate, raw, field);
      if (parsed === undefined) continue;
      this.onRead?.('incremental');
      return { ...parsed, prefix, notCompact: known.notCompact };
    }
    const body = parseObject(raw);
    if (body === undefined) return undefined;
    this.onRead?.('whole');
    // A client whose bodies are not compact JSON would pay the check on every request for nothing:
    // after a miss it is made again at the 1st, 2nd, 4th, 8th… body, so one odd body costs nothing.
    const { notCompact } = known;
    const check = (notCompact & (notCompact - 1)) === 0;
    const layout = check ? layoutOf(raw, body, field) : undefined;
    return { raw, body, layout, prefix, notCompact: layout === undefined ? notCompact + 1 : 0 };
  }

  /**
   * Puts the parsed objects of the session's last request in place of the same parts `body` sent
   * again (messages, system prompt, tools), so the compactor's per-object caches serve them.
   */
  reuse(sessionKey: string, api: WireFormat, body: Record<string, unknown>): void {
    reuseUnchanged(this.states.get(sessionKey)?.body, body, conversationField(api));
  }

  /** Makes `read` the session's last request, in place of the one before. */
  keep(sessionKey: string, read: BodyRead): void {
    this.delete(sessionKey);
    this.states.set(sessionKey, read);
    if (read.prefix === undefined) return;
    const sessions = this.prefixes.get(read.prefix)?.sessions ?? [];
    const kept = [sessionKey, ...sessions].slice(0, CANDIDATES);
    this.prefixes.set(read.prefix, { sessions: kept, notCompact: read.notCompact });
  }

  /** Forgets the session's last request. */
  delete(sessionKey: string): void {
    const state = this.states.get(sessionKey);
    if (state === undefined) return;
    this.states.delete(sessionKey);
    const known = state.prefix === undefined ? undefined : this.prefixes.get(state.prefix);
    if (known === undefined) return;
    const sessions = known.sessions.filter((key) => key !== sessionKey);
    if (sessions.length === 0) this.prefixes.delete(state.prefix as string);
    else known.sessions = sessions;
  }

  /** What the session's last request holds: its bytes (outside the heap) and their parse. */
  bytesOf(sessionKey: string): number {
    const state = this.states.get(sessionKey);
    return state === undefined ? 0 : state.raw.length * (1 + HEAP_BYTES_PER_JSON_BYTE);
  }

  /** The bytes of the session's last request as it came, 0 when none is kept. */
  requestBytesOf(sessionKey: string): number {
    return this.states.get(sessionKey)?.raw.length ?? 0;
  }

  /** Sessions with a last request kept. */
  get size(): number {
    return this.states.size;
  }
}
