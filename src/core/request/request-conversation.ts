/**
 * The conversation inside a whole request body, per API: what the compactor reads (system,
 * messages, tools) and how compacted messages are written back into the body's own field.
 */
import { fromOpenAIMessages, toOpenAIMessages } from '../conversation/openai-format.js';
import type { OpenAIChatMessage } from '../conversation/openai-types.js';
import { fromResponsesInput, toResponsesInput } from '../conversation/responses-format.js';
import type { ResponsesInput } from '../conversation/responses-types.js';
import type { Message, SystemPrompt } from '../conversation/types.js';
import { validateMessages } from '../conversation/validate.js';
import { CompactError } from '../errors.js';
import type { ToolDefinition } from '../tokens/tool-tokens.js';
import { readGeminiRequest } from '../wire/gemini/gemini-request.js';
import { isPlainObject, type RequestFormat, typeName } from './request-format.js';
import {
  countSystemMessageBreakpoints,
  placeSystemMessages,
  splitSystemMessages,
  withSystemMessageText,
} from './system-messages.js';

/** A request body as a plain JSON object. */
export type RequestBody = Record<string, unknown>;

/** What the compactor reads from a request, and how its result goes back. */
export interface RequestConversation {
  /** The system prompt in the canonical model (counted, never changed). */
  system?: SystemPrompt;
  /** The conversation in the canonical model. */
  messages: Message[];
  /** The request's tool definitions as they came (counted, never changed). */
  tools?: readonly ToolDefinition[];
  /**
   * The body's fields that carry `messages` once compacted, by name (e.g. `{ messages: [...] }`).
   * `inPlace`: every message is where it was (micro, mid), so what the canonical model left out
   * goes back by position rather than by object.
   */
  write(messages: readonly Message[], options?: { inPlace?: boolean }): RequestBody;
  /** Cache breakpoints outside the system prompt, tools and messages (top-level, system messages). */
  extraBreakpoints?: number;
  /** The body path of conversation message `index`, when it differs from `messages[index]`. */
  messagePath?(index: number): string;
}

/**
 * Reads the conversation of a request body in the given format.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` when a field has the wrong type, `INVALID_TRANSCRIPT`
 *   when OpenAI messages break the API's rules; both with the field's path.
 */
export function readRequestConversation(body: RequestBody, format: RequestFormat): RequestConversation {
  switch (format) {
    case 'anthropic':
      return readAnthropic(body);
    case 'openai':
      return readOpenAI(body);
    case 'responses':
      return readResponses(body);
    case 'gemini':
      return readGeminiRequest(body);
    default: {
      const unreachable: never = format;
      throw new CompactError(
        `format must be "anthropic", "openai", "responses" or "gemini", got ${String(unreachable)}`,
        {
          code: 'INVALID_OPTIONS',
        },
      );
    }
  }
}

function readAnthropic(body: RequestBody): RequestConversation {
  const places = splitSystemMessages(expectArray(body.messages, 'messages'));
  const tools = readTools(body.tools);
  const { system } = body;
  if (system !== undefined && system !== null && typeof system !== 'string' && !Array.isArray(system)) {
    throw unreadable(`expected string or array, got ${typeName(system)}`, 'system');
  }
  // Mid-conversation system messages are instructions: counted with the system prompt, put back as they came.
  const counted = withSystemMessageText((system ?? undefined) as SystemPrompt | undefined, places);
  const topLevelBreakpoint = isPlainObject(body.cache_control) ? 1 : 0;
  return {
    messages: places.conversation as Message[],
    ...(counted === undefined ? {} : { system: counted }),
    ...(tools ? { tools } : {}),
    write: (compacted, options) => ({ messages: placeSystemMessages(compacted, places, options) }),
    extraBreakpoints: topLevelBreakpoint + countSystemMessageBreakpoints(places),
    ...(places.placed.length > 0
      ? { messagePath: (index: number) => `messages[${places.bodyIndex[index] ?? index}]` }
      : {}),
  };
}

function readOpenAI(body: RequestBody): RequestConversation {
  const openAIMessages = expectArray(body.messages, 'messages') as OpenAIChatMessage[];
  openAIMessages.forEach((message, index) => {
    if (!isPlainObject(message) || typeof message.role !== 'string') {
      throw unreadable('expected a message object with a "role"', `messages[${index}]`);
    }
  });
  const converted = convertOpenAI(openAIMessages);
  const systemMessages = openAIMessages.filter(isSystemMessage);
  const tools = readTools(body.tools);
  return {
    messages: converted.messages,
    ...(converted.system === undefined ? {} : { system: converted.system }),
    ...(tools ? { tools } : {}),
    // The system messages go back as they came; messages the compactor left alone keep their bytes.
    write: (compacted) => ({
      messages: [
        ...systemMessages,
        ...withOriginals(toOpenAIMessages({ messages: compacted }), openAIMessages),
      ],
    }),
  };
}

function readResponses(body: RequestBody): RequestConversation {
  const { input, instructions } = body;
  if (typeof input !== 'string') {
    expectArray(input, 'input').forEach((item, index) => {
      if (!isPlainObject(item))
        throw unreadable(`expected an item object, got ${typeName(item)}`, `input[${index}]`);
    });
  }
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string') {
    throw unreadable(`expected string, got ${typeName(instructions)}`, 'instructions');
  }
  const { messages, system } = convertResponses(input as ResponsesInput, instructions);
  const tools = readTools(body.tools);
  return {
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools ? { tools } : {}),
    // `instructions` stay in their own field; leading developer messages go back first in `input`.
    write: (compacted) => ({ input: toResponsesInput(compacted, system) }),
  };
}

/** Converts Responses input; items the converter cannot read are `UNREADABLE_INPUT` at `input`. */
function convertResponses(input: ResponsesInput, instructions: string | null | undefined) {
  try {
    return fromResponsesInput(input, { instructions });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CompactError(`cannot read the input items: ${reason}`, {
      code: 'UNREADABLE_INPUT',
      path: 'input',
      cause: error,
    });
  }
}

/** Converts OpenAI messages, naming the first broken rule when they cannot be read. */
function convertOpenAI(openAIMessages: readonly OpenAIChatMessage[]) {
  try {
    return fromOpenAIMessages(openAIMessages);
  } catch (error) {
    const [first] = validateMessages(openAIMessages, { format: 'openai' });
    if (!first) throw error;
    throw new CompactError(first.message, { code: 'INVALID_TRANSCRIPT', path: first.path, cause: error });
  }
}

/**
 * Puts the client's own message objects back where the conversion wrote an equal message, so
 * fields the canonical model has no slot for (a message `name`, argument spacing) survive.
 */
function withOriginals(
  output: OpenAIChatMessage[],
  original: readonly OpenAIChatMessage[],
): OpenAIChatMessage[] {
  const conversation = original.filter((message) => !isSystemMessage(message));
  const roundTrip = toOpenAIMessages({ messages: fromOpenAIMessages(conversation).messages });
  // Only a one-to-one round trip says which original each converted message came from.
  if (roundTrip.length !== conversation.length) return output;
  const byText = new Map<string, OpenAIChatMessage[]>();
  roundTrip.forEach((message, index) => {
    const key = JSON.stringify(message);
    byText.set(key, [...(byText.get(key) ?? []), conversation[index]!]);
  });
  return output.map((message) => byText.get(JSON.stringify(message))?.shift() ?? message);
}

function isSystemMessage(message: OpenAIChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

function readTools(tools: unknown): readonly ToolDefinition[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  const definitions = expectArray(tools, 'tools');
  definitions.forEach((tool, index) => {
    if (!isPlainObject(tool))
      throw unreadable(`expected a tool object, got ${typeName(tool)}`, `tools[${index}]`);
  });
  return definitions as ToolDefinition[];
}

function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw unreadable(`expected an array, got ${typeName(value)}`, path);
  return value;
}

function unreadable(message: string, path: string): CompactError {
  return new CompactError(message, { code: 'UNREADABLE_INPUT', path });
}
