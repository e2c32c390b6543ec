/** The OpenAI Responses API on the scripted server: `POST /v1/responses`. */
import { answerRequest } from '../../_answer-request.js';
import { openAIErrorBody, openAIPromptTooLong } from '../../_wire.js';
import type { AnswerWriter, ScriptedWire } from '../scripted-wire.js';
import {
  type ResponsesAnswer,
  responsesEvents,
  responsesObject,
  responsesStreamError,
} from './responses-answer.js';
import { checkResponsesRequest, responsesExtras } from './responses-request.js';

const writer: AnswerWriter = {
  format: 'responses',
  paths: ['/v1/responses'],
  requestIdHeader: 'x-request-id',
  toolCallPrefix: 'call',
  reportsCacheWrites: false,
  answerId: (counter) => `resp_scripted_${counter}`,
  unauthorized: () => ({
    status: 401,
    message: "You didn't provide an API key.",
    anthropicType: 'authentication_error',
    openAIType: 'invalid_request_error',
    code: null,
  }),
  checkRequest: ({ body, validation }) => checkResponsesRequest(body, validation),
  promptTooLong: openAIPromptTooLong,
  answerExtras: responsesExtras,
  // answerExtras gave every answer of this writer the Responses fields.
  streamParts: (answer) => responsesEvents(answer as ResponsesAnswer),
  answerBody: (answer) => responsesObject(answer as ResponsesAnswer),
  streamError: responsesStreamError,
  errorBody: openAIErrorBody,
};

export const scriptedResponses: ScriptedWire = {
  format: 'responses',
  servesPath: (path) => path.endsWith('/responses'),
  handle: (exchange) => answerRequest(exchange, writer),
  errorBody: openAIErrorBody,
};
