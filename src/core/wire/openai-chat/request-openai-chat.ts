/** The conversation of an OpenAI Chat Completions request body. */
import { fromOpenAIMessages, toOpenAIMessages } from '../../conversation/openai-format.js';
import type { OpenAIChatMessage } from '../../conversation/openai-types.js';
import { CompactError } from '../../model/errors.js';
import type { ValidationProblem } from '../../model/problems.js';
import type { RequestBody, RequestConversation } from '../../model/request.js';
import { expectArray, readTools, unreadable } from '../../request/request-fields.js';
import { isPlainObject } from '../../request/request-format.js';
import { validateOpenAI } from './validate-openai-chat.js';

/** An OpenAI Chat request: system messages stay as they came, the rest is the conversation. */
export function readOpenAIRequest(body: RequestBody): RequestConversation {
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

/** Converts OpenAI messages, naming the first broken rule when they cannot be read. */
function convertOpenAI(openAIMessages: readonly OpenAIChatMessage[]) {
  try {
    return fromOpenAIMessages(openAIMessages);
  } catch (error) {
    const problems: ValidationProblem[] = [];
    validateOpenAI(openAIMessages, problems);
    const [first] = problems;
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
