/**
 * A wire dialect: everything one provider format does differently, behind one interface. Callers
 * look the dialect up (`dialects[format]`, ./dialects.ts) instead of switching on the format's
 * name, so a new format is one folder under `core/wire/` and one registration.
 */

import type { Conversation, ProviderUsage } from '../model/messages.js';
import type { ValidationProblem } from '../model/problems.js';
import type { RequestBody, RequestConversation } from '../model/request.js';
import type { WireFormat } from '../model/wire-format.js';
import type { SummaryRequest } from '../summary/summary-model.js';
import type {
  ConversationLayout,
  ParsedConversation,
  SerializeConversationOptions,
} from './parsed-conversation.js';

/** A conversation file's parts as found, before a dialect reads them (see `conversationFromValue`). */
export interface RawConversation {
  /** The format's messages (or items, or contents), already checked for depth and bad strings. */
  messages: unknown[];
  /** The system prompt field as found (`system`, `instructions`, `systemInstruction`). */
  system: unknown;
  /** How the file laid the messages out. */
  layout: ConversationLayout;
  /** Where message `index` is named in errors (its JSONL line when known). */
  messagePath: (index: number) => string;
  /** The file name put in front of error paths. */
  source: string | undefined;
}

/** An error answer in the provider's own shape, as the proxy and the scripted server send it. */
export interface DialectErrorAnswer {
  /** The JSON body the provider's SDK reads the error from. */
  body: Record<string, unknown>;
  /** Headers beyond `content-type` (the SDKs retry an Anthropic/OpenAI error on `x-should-retry`). */
  headers: Record<string, string>;
}

/** Where a summary call goes and what it sends. */
export interface SummaryCall {
  url: URL;
  body: Record<string, unknown>;
}

/** One provider wire format: reader, rules, request body, usage, summary call and error shape. */
export interface WireDialect {
  /** The format this dialect speaks; its key in `dialects`. */
  readonly format: WireFormat;
  /** The request-body field that holds the conversation. */
  readonly conversationField: 'messages' | 'input' | 'contents';
  /**
   * Where the format marks its prompt-cache breakpoints: `'in-blocks'` when they sit on content
   * blocks (Anthropic's `cache_control`), so a compacted request must put them back; `'none'` when
   * the provider caches without marks.
   */
  readonly cacheBreakpoints: 'in-blocks' | 'none';
  /**
   * How a compactor's `INVALID_TRANSCRIPT` is said in a request body's terms: `'message-path'` maps
   * its `messages[i]` through the request's `messagePath` (the compactor read the body's own
   * messages); `'body-rules'` checks the body's field again by this format's rules.
   */
  readonly compactorErrors: 'message-path' | 'body-rules';
  /**
   * Reads a conversation file's messages into the canonical model.
   * @throws {CompactError} `UNREADABLE_INPUT` (or `INVALID_TRANSCRIPT`) naming the path.
   */
  readConversation(raw: RawConversation): ParsedConversation;
  /** Writes a conversation as a file of this format: one JSON object, or JSONL. */
  serializeConversation(conversation: Conversation, options: SerializeConversationOptions): string;
  /** Pushes every rule of this format that `messages` breaks; never throws. */
  validate(messages: unknown, problems: ValidationProblem[], options: { systemMessages: boolean }): void;
  /**
   * True when the API takes a conversation that ends with calls not yet answered (Gemini: the client
   * sends their responses with its next request): a repair leaves those to the client.
   */
  readonly takesTrailingCalls?: boolean;
  /** Every rule a conversation read from a file breaks, with the file's own paths (`input[3]`). */
  fileProblems(parsed: ParsedConversation): ValidationProblem[];
  /**
   * Rewrites the canonical paths in a text (`messages[3].content[0]`: a repair's change and its
   * sentence) as paths into the file `parsed` was read from; absent where they are the same.
   */
  filePaths?(parsed: ParsedConversation): (text: string) => string;
  /** Every rule a request's conversation breaks, with paths into the body (`messages[3]…`). */
  requestProblems(body: RequestBody, conversation: RequestConversation): ValidationProblem[];
  /**
   * Reads the conversation out of a whole request body, and how to write it back.
   * @throws {CompactError} `UNREADABLE_INPUT` or `INVALID_TRANSCRIPT` with the field's path.
   */
  readRequest(body: RequestBody): RequestConversation;
  /** The usage an answer body reports, in the core's one {@link ProviderUsage} shape. */
  usageOf(answer: unknown): ProviderUsage | undefined;
  /**
   * The usage of a streamed answer once one more of its events (the parsed `data:` JSON) is read:
   * what the event reports over `sofar`, or `sofar` when it reports none.
   */
  eventUsage(event: Record<string, unknown>, sofar: ProviderUsage | undefined): ProviderUsage | undefined;
  /**
   * The summary call that borrows a request (`url`, `body`): its model, settings and tools kept,
   * never streamed, the conversation replaced by `request`'s so the provider reads the prefix from
   * its prompt cache.
   */
  summaryCall(url: URL, body: Record<string, unknown>, request: SummaryRequest): SummaryCall;
  /** The text of a (non-streamed) answer; empty when it has none. */
  answerText(answer: Record<string, unknown>): string;
  /** An error answer with `status` and `message`, in the provider's own shape. */
  errorAnswer(status: number, message: string): DialectErrorAnswer;
  /**
   * True when the request's model checks each thinking block it is sent back against everything
   * before it (Claude's preserved thinking): a compaction must not send a thinking block after
   * what it changed (`MaybeCompactOptions.preservedThinking`). Absent: the format has no such check.
   */
  checksThinkingPrefix?(body: RequestBody): boolean;
}
