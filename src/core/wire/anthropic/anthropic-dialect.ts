/** The Anthropic Messages API as a {@link WireDialect}. */
import { copyUsage, RETRY_HEADERS, SAME_NAMED_USAGE, usageField } from '../_internal/usage.js';
import type { WireDialect } from '../dialect.js';
import { readAnthropicConversation, serializeAnthropic } from './read-anthropic.js';
import { readAnthropicRequest } from './request-anthropic.js';
import { validateAnthropic } from './validate-anthropic.js';

export const anthropicDialect: WireDialect = {
  format: 'anthropic',
  conversationField: 'messages',
  readConversation: readAnthropicConversation,
  serializeConversation: serializeAnthropic,
  validate: (messages, problems, { systemMessages }) => validateAnthropic(messages, problems, systemMessages),
  readRequest: readAnthropicRequest,
  usageOf: (answer) => copyUsage(usageField(answer), SAME_NAMED_USAGE),
  errorAnswer: (status, message) => ({
    body: { type: 'error', error: { type: status === 502 ? 'api_error' : 'invalid_request_error', message } },
    headers: { ...RETRY_HEADERS },
  }),
};
