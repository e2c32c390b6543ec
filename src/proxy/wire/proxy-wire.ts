/**
 * What the proxy does differently per wire format, in one object per format: which paths it
 * compacts and counts tokens on, what it checks around a compacted request, where a streamed
 * answer's note goes, and `--recall`'s calls. Each format's object lives in its folder
 * (`proxy/wire/<format>/`); `proxyWires` (./proxy-wires.ts) is the one list of them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ValidateOptions, WireFormat } from 'agent-compact/wire';
import type { RecallWire } from '../recall/recall-wire.js';

/** A format's own token counting endpoint. */
export interface TokenCountRoute {
  /** True for the endpoint's path (after any prefix). */
  matches(pathname: string): boolean;
  /**
   * The fields a count body may carry a whole request under, instead of the conversation itself
   * (every name the API reads it under).
   */
  readonly wrappedFields?: readonly string[];
}

/** What the proxy routes by for one format. */
export interface FormatRoute {
  /** True for a path (one trailing slash already dropped) whose conversation the proxy compacts. */
  compacts(path: string): boolean;
  /** Where the format counts tokens, if it has an endpoint for it. */
  readonly tokenCount?: TokenCountRoute;
}

/** What the proxy checks around a compacted request of one format. */
export interface FormatChecks {
  /**
   * Why a request must go upstream as it came, if its history lives on the provider (an id or
   * item references the part it carries points at).
   */
  statefulReason?(body: Record<string, unknown>): string | undefined;
  /**
   * True when the request's model binds each thinking block to the history before it (Claude's
   * preserved thinking): the client's copy of a history the proxy compacted is then not one to send.
   */
  bindsThinking?(body: Record<string, unknown>): boolean;
  /** The conversation without its thinking blocks, for a model that binds them (`bindsThinking`). */
  withoutThinking?(items: unknown[]): unknown[];
  /** The conversation in the model `validateMessages` checks it in, when that is not the one sent. */
  canonical?(items: unknown[]): unknown[];
  /** The `validateMessages` options for a request's conversation: its format, system prompt, betas. */
  validation(
    body: Record<string, unknown>,
    headers: IncomingHttpHeaders,
  ): Omit<ValidateOptions, 'relativeTo'>;
}

/** Prepends a note to one streamed event's text in place; false when the event has no text delta. */
export type NoteWriter = (data: Record<string, unknown>, note: string) => boolean;

/** One format's part of the proxy. */
export interface ProxyWire {
  /** The format this speaks; its key in `proxyWires`. */
  readonly format: WireFormat;
  readonly route: FormatRoute;
  readonly checks: FormatChecks;
  /** Where the format streams answer text, for the compaction note. */
  readonly writeNote: NoteWriter;
  /**
   * What the provider bills a prompt-cache write at, as a share of the input price (`wrap`'s
   * saving): Anthropic 1.25×; OpenAI's and Gemini's caching write for free, 1×.
   */
  readonly cacheWriteMultiplier: number;
  readonly recall: RecallWire;
}
