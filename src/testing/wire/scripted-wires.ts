/**
 * The registry of the scripted server's formats. A new wire format is one folder here beside its
 * core dialect, and one line below; the `Record` type makes the compiler name a format left out.
 */
import { WIRE_FORMATS, type WireFormat } from 'agent-compact/wire';
import { scriptedAnthropic } from './anthropic/scripted-anthropic.js';
import { scriptedGemini } from './gemini/scripted-gemini.js';
import { scriptedOpenAIChat } from './openai-chat/scripted-openai-chat.js';
import { scriptedResponses } from './responses/scripted-responses.js';
import type { ScriptedWire } from './scripted-wire.js';

/** Every format's side of the scripted server, by format. */
export const scriptedWires: Readonly<Record<WireFormat, ScriptedWire>> = {
  anthropic: scriptedAnthropic,
  openai: scriptedOpenAIChat,
  responses: scriptedResponses,
  gemini: scriptedGemini,
};

/** The format that answers a path no other claims, and the server's own failures. */
export const fallbackWire: ScriptedWire = scriptedAnthropic;

/** The format whose API `path` belongs to. */
export function scriptedWireOf(path: string): ScriptedWire {
  const claimed = WIRE_FORMATS.map((format) => scriptedWires[format]).filter((wire) => wire !== fallbackWire);
  return claimed.find((wire) => wire.servesPath(path)) ?? fallbackWire;
}
