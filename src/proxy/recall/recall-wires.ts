/**
 * The registry of the formats' recall. A new wire format is one module here beside its core
 * dialect, and one line below; the `Record` type makes the compiler name a format left out.
 */
import type { WireFormat } from '../../core/model/wire-format.js';
import { anthropicRecall } from './anthropic.js';
import { geminiRecall } from './gemini.js';
import { openAIChatRecall } from './openai-chat.js';
import type { RecallWire } from './recall-wire.js';
import { responsesRecall } from './responses.js';

/** Every format's recall, by format. */
export const recallWires: Readonly<Record<WireFormat, RecallWire>> = {
  anthropic: anthropicRecall,
  openai: openAIChatRecall,
  responses: responsesRecall,
  gemini: geminiRecall,
};
