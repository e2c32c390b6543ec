/**
 * The registry of the formats' recall. A new wire format is one module in its proxy folder
 * (`proxy/wire/<format>/`), and one line below; the `Record` type makes the compiler name a format
 * left out.
 */
import type { WireFormat } from 'agent-compact/wire';
import { anthropicRecall } from '../wire/anthropic/anthropic-recall.js';
import { geminiRecall } from '../wire/gemini/gemini-recall.js';
import { openAIChatRecall } from '../wire/openai-chat/openai-chat-recall.js';
import { responsesRecall } from '../wire/responses/responses-recall.js';
import type { RecallWire } from './recall-wire.js';

/** Every format's recall, by format. */
export const recallWires: Readonly<Record<WireFormat, RecallWire>> = {
  anthropic: anthropicRecall,
  openai: openAIChatRecall,
  responses: responsesRecall,
  gemini: geminiRecall,
};
