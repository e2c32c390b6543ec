/** The Anthropic Messages API on the scripted server: `POST /v1/messages` and its count route. */
import { answerRequest } from '../../_answer-request.js';
import { invalidRequest, type WireError } from '../../_wire.js';
import type { AnswerWriter, ScriptedWire } from '../scripted-wire.js';
import { anthropicEvents, anthropicExtras, anthropicMessage } from './anthropic-answer.js';
import { checkAnthropicRequest } from './anthropic-request.js';

function errorBody(error: WireError): Record<string, unknown> {
  return { type: 'error', error: { type: error.anthropicType, message: error.message } };
}

const writer: AnswerWriter = {
  format: 'anthropic',
  paths: ['/v1/messages'],
  countPath: '/v1/messages/count_tokens',
  requestIdHeader: 'request-id',
  toolCallPrefix: 'toolu',
  reportsCacheWrites: true,
  answerId: (counter) => `msg_scripted_${counter}`,
  unauthorized: () => ({
    status: 401,
    message: 'invalid x-api-key',
    anthropicType: 'authentication_error',
    openAIType: 'invalid_request_error',
    code: null,
  }),
  checkRequest: checkAnthropicRequest,
  promptTooLong: (tokens, contextWindow) =>
    invalidRequest(`prompt is too long: ${tokens} tokens > ${contextWindow} maximum`, null),
  answerExtras: anthropicExtras,
  streamParts: anthropicEvents,
  answerBody: anthropicMessage,
  streamError: (error) => `event: error\ndata: ${JSON.stringify(errorBody(error))}\n\n`,
  errorBody,
};

/** Every path no other format claims is Anthropic's (an unknown route gets its 404). */
export const scriptedAnthropic: ScriptedWire = {
  format: 'anthropic',
  servesPath: () => true,
  handle: (exchange) => answerRequest(exchange, writer),
  errorBody,
};
