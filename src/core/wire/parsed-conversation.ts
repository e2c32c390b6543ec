/**
 * What reading a conversation gives back, shared by `parseConversation` and every dialect's
 * reader (a type file, so a reader need not import the parser that calls it).
 */

import type { OpenAIChatMessage, OpenAISystemRole } from '../conversation/openai-types.js';
import type { ResponsesInputItem } from '../conversation/responses-types.js';
import type { Conversation, Message } from '../model/messages.js';
import type { WireFormat } from '../model/wire-format.js';

/** How the messages were laid out in the text. */
export type ConversationLayout = 'object' | 'array' | 'jsonl';

/** A parsed conversation and what it was read from. */
export interface ParsedConversation {
  /** The conversation in the canonical model. */
  conversation: Conversation;
  /** The format the input was in (detected or forced). */
  format: WireFormat;
  /** How the input was laid out, so output can be written the same way. */
  layout: ConversationLayout;
  /** OpenAI input only: the role of its first system message. */
  systemRole?: OpenAISystemRole;
  /** OpenAI input only: the messages as read, in the input's order, so problems keep the input's paths. */
  openAIMessages?: OpenAIChatMessage[];
  /** Responses input only: the items as read, so problems keep the input's paths (`input[3]`). */
  responsesInput?: ResponsesInputItem[];
  /** Gemini input only: the contents as read, so problems keep the input's paths (`contents[3]`). */
  geminiContents?: unknown[];
}

/** Options of {@link serializeConversation}. */
export interface SerializeConversationOptions {
  /**
   * Write one message per line instead of one JSON object.
   * @default false
   */
  jsonl?: boolean;
  /**
   * OpenAI output only: the role the system prompt is written with.
   * @default 'system'
   */
  systemRole?: OpenAISystemRole;
  /**
   * The messages the conversation was read as, before a compactor changed them: a block it wrote
   * in place of one of them (a masked tool result) is written with the wire fields of the one it
   * stands for, which the rewritten block does not carry (Gemini: a `functionResponse`'s own `id`,
   * `willContinue`, `scheduling`). Other formats keep no such fields on a rewritten block.
   */
  compactedFrom?: readonly Message[];
}
