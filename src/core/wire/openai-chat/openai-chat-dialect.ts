/** OpenAI Chat Completions as a {@link WireDialect}. */
import { toOpenAIMessages } from '../../conversation/openai-format.js';
import { openAIErrorAnswer } from '../_internal/openai-error.js';
import { copyUsage, eventUsageOf, SAME_NAMED_USAGE, usageField } from '../_internal/usage.js';
import { collectProblems } from '../_internal/validate-helpers.js';
import type { WireDialect } from '../dialect.js';
import { openAIFilePaths } from './openai-file-paths.js';
import { readOpenAIConversation, serializeOpenAI } from './read-openai-chat.js';
import { readOpenAIRequest } from './request-openai-chat.js';
import { openAIChatAnswerText, openAIChatSummaryCall } from './summary-openai-chat.js';
import { validateOpenAI } from './validate-openai-chat.js';

export const openAIChatDialect: WireDialect = {
  format: 'openai',
  conversationField: 'messages',
  cacheBreakpoints: 'none',
  compactorErrors: 'body-rules',
  readConversation: readOpenAIConversation,
  serializeConversation: serializeOpenAI,
  validate: (messages, problems) => validateOpenAI(messages, problems),
  // The messages as read keep the input's own indices in every path.
  fileProblems: ({ conversation, openAIMessages, systemRole }) =>
    collectProblems((problems) =>
      validateOpenAI(
        openAIMessages ?? toOpenAIMessages(conversation, systemRole ? { systemRole } : {}),
        problems,
      ),
    ),
  filePaths: ({ openAIMessages }) => (openAIMessages ? openAIFilePaths(openAIMessages) : (text) => text),
  requestProblems: (body) => collectProblems((problems) => validateOpenAI(body.messages, problems)),
  readRequest: readOpenAIRequest,
  usageOf: (answer) => copyUsage(usageField(answer), SAME_NAMED_USAGE),
  eventUsage: eventUsageOf(SAME_NAMED_USAGE),
  summaryCall: openAIChatSummaryCall,
  answerText: openAIChatAnswerText,
  errorAnswer: openAIErrorAnswer,
};
