/** The Anthropic Messages API as a {@link WireDialect}. */
import type { ValidationProblem } from '../../model/problems.js';
import type { RequestBody, RequestConversation } from '../../model/request.js';
import { retryHeaders } from '../_internal/error-headers.js';
import { copyUsage, eventUsageOf, SAME_NAMED_USAGE, usageField } from '../_internal/usage.js';
import { collectProblems } from '../_internal/validate-helpers.js';
import type { WireDialect } from '../dialect.js';
import { checksThinkingPrefix } from './preserved-thinking.js';
import { readAnthropicConversation, serializeAnthropic } from './read-anthropic.js';
import { readAnthropicRequest } from './request-anthropic.js';
import { anthropicAnswerText, anthropicSummaryCall } from './summary-anthropic.js';
import { validateAnthropic, validateSystem } from './validate-anthropic.js';

/** Anthropic rules with the `system` prompt checked first, as `validateMessages` does. */
function anthropicProblems(messages: unknown, system: unknown): ValidationProblem[] {
  return collectProblems((problems) => {
    if (system !== undefined) validateSystem(system, problems);
    validateAnthropic(messages, problems, false);
  });
}

/** Mid-conversation system messages are not conversation: the rest is checked, named by body path. */
function anthropicRequestProblems(body: RequestBody, conversation: RequestConversation): ValidationProblem[] {
  const system = body.system === null ? undefined : body.system;
  const problems = anthropicProblems(conversation.messages, system);
  const { messagePath } = conversation;
  if (!messagePath) return problems;
  const inBody = (text: string) =>
    text.replace(/messages\[(\d+)\]/g, (_match, index: string) => messagePath(Number(index)));
  return problems.map((problem) => ({
    ...problem,
    path: inBody(problem.path),
    message: inBody(problem.message),
  }));
}

export const anthropicDialect: WireDialect = {
  format: 'anthropic',
  conversationField: 'messages',
  cacheBreakpoints: 'in-blocks',
  compactorErrors: 'message-path',
  readConversation: readAnthropicConversation,
  serializeConversation: serializeAnthropic,
  validate: (messages, problems, { systemMessages }) => validateAnthropic(messages, problems, systemMessages),
  fileProblems: ({ conversation }) => anthropicProblems(conversation.messages, conversation.system),
  requestProblems: anthropicRequestProblems,
  readRequest: readAnthropicRequest,
  usageOf: (answer) => copyUsage(usageField(answer), SAME_NAMED_USAGE),
  eventUsage: eventUsageOf(SAME_NAMED_USAGE),
  summaryCall: anthropicSummaryCall,
  answerText: anthropicAnswerText,
  errorAnswer: (status, message) => ({
    body: { type: 'error', error: { type: anthropicErrorType(status), message } },
    headers: retryHeaders(status),
  }),
  checksThinkingPrefix: (body) => checksThinkingPrefix(body.model),
};

/** Anthropic's error types by status (its `ErrorType`), for a status the proxy answers with itself. */
const anthropicErrorTypes: Readonly<Record<number, string>> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function anthropicErrorType(status: number): string {
  return anthropicErrorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}
