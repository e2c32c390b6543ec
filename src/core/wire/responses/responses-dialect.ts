/** OpenAI Responses as a {@link WireDialect}. */

import { rewriteCanonicalPaths } from '../_internal/file-paths.js';
import { openAIErrorAnswer } from '../_internal/openai-error.js';
import { copyUsage, eventUsageOf, usageField } from '../_internal/usage.js';
import { collectProblems } from '../_internal/validate-helpers.js';
import type { WireDialect } from '../dialect.js';
import { readResponsesConversation, serializeResponses } from './read-responses.js';
import { readResponsesRequest } from './request-responses.js';
import { responsesBlockSources } from './responses-file-paths.js';
import { toResponsesInput } from './responses-format.js';
import { responsesAnswerText, responsesSummaryCall } from './summary-responses.js';
import { validateResponsesInput } from './validate-responses.js';

/** A Responses answer's `input_tokens` is the whole prompt, as Chat's `prompt_tokens`. */
const RESPONSES_USAGE = [
  ['input_tokens', 'prompt_tokens'],
  ['output_tokens', 'completion_tokens'],
] as const;

export const responsesDialect: WireDialect = {
  format: 'responses',
  conversationField: 'input',
  cacheBreakpoints: 'none',
  compactorErrors: 'body-rules',
  readConversation: readResponsesConversation,
  serializeConversation: serializeResponses,
  validate: (messages, problems) => validateResponsesInput(messages, problems),
  fileProblems: ({ conversation, responsesInput }) =>
    collectProblems((problems) =>
      validateResponsesInput(
        responsesInput ?? toResponsesInput(conversation.messages, conversation.system),
        problems,
      ),
    ),
  filePaths: ({ responsesInput }) =>
    responsesInput ? rewriteCanonicalPaths(responsesBlockSources(responsesInput)) : (text) => text,
  requestProblems: (body) =>
    collectProblems((problems) =>
      validateResponsesInput(typeof body.input === 'string' ? [] : body.input, problems),
    ),
  readRequest: readResponsesRequest,
  usageOf: (answer) => copyUsage(usageField(answer), RESPONSES_USAGE),
  eventUsage: eventUsageOf(RESPONSES_USAGE),
  summaryCall: responsesSummaryCall,
  answerText: responsesAnswerText,
  errorAnswer: openAIErrorAnswer,
};
