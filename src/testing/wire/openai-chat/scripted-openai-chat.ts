/** The OpenAI Chat Completions API on the scripted server: `POST /v1/chat/completions`. */
import { answerRequest } from '../../_answer-request.js';
import { openAIErrorBody, openAIPromptTooLong } from '../../_wire.js';
import type { AnswerWriter, ScriptedWire } from '../scripted-wire.js';
import { openAIChunks, openAICompletion } from './chat-answer.js';
import { checkChatRequest } from './chat-request.js';

const created = () => Math.floor(Date.now() / 1000);

const writer: AnswerWriter = {
  format: 'openai',
  paths: ['/v1/chat/completions'],
  requestIdHeader: 'x-request-id',
  toolCallPrefix: 'call',
  reportsCacheWrites: false,
  answerId: (counter) => `chatcmpl-scripted-${counter}`,
  unauthorized: () => ({
    status: 401,
    message: "You didn't provide an API key.",
    anthropicType: 'authentication_error',
    openAIType: 'invalid_request_error',
    code: 'invalid_api_key',
  }),
  checkRequest: checkChatRequest,
  promptTooLong: openAIPromptTooLong,
  streamParts: (answer) => openAIChunks(answer, created()),
  answerBody: (answer) => openAICompletion(answer, created()),
  // Chat Completions has no error event: the error comes as a chunk of its own.
  streamError: (error) => `data: ${JSON.stringify(openAIErrorBody(error))}\n\n`,
  errorBody: openAIErrorBody,
};

export const scriptedOpenAIChat: ScriptedWire = {
  format: 'openai',
  servesPath: (path) => path.endsWith('/chat/completions'),
  handle: (exchange) => answerRequest(exchange, writer),
  errorBody: openAIErrorBody,
};
