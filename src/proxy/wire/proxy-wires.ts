/**
 * The registry of the formats' proxy parts. A new wire format is one folder here
 * (`proxy/wire/<format>/`) and one line below; the `Record` type makes the compiler name a format
 * left out.
 */
import type { WireFormat } from 'agent-compact/wire';
import { anthropicProxy } from './anthropic/anthropic-proxy-wire.js';
import { geminiProxy } from './gemini/gemini-proxy-wire.js';
import { openAIChatProxy } from './openai-chat/openai-chat-proxy-wire.js';
import type { ProxyWire } from './proxy-wire.js';
import { responsesProxy } from './responses/responses-proxy-wire.js';

/** Every format's proxy part, by format. */
export const proxyWires: Readonly<Record<WireFormat, ProxyWire>> = {
  anthropic: anthropicProxy,
  openai: openAIChatProxy,
  responses: responsesProxy,
  gemini: geminiProxy,
};
