/** Gemini `generateContent` as a {@link WireDialect}. */

import { CompactError } from '../../model/errors.js';
import { collectProblems } from '../_internal/validate-helpers.js';
import type { RawConversation, WireDialect } from '../dialect.js';
import type { ParsedConversation } from '../parsed-conversation.js';
import { geminiConversation, serializeGemini } from './gemini-conversation.js';
import { readGeminiRequest } from './gemini-request.js';
import { geminiUsage } from './gemini-usage.js';
import { toGeminiContents } from './gemini-write.js';
import { geminiAnswerText, geminiSummaryCall } from './summary-gemini.js';
import { validateGeminiContents } from './validate-gemini.js';

/** Reads Gemini contents; the error path gets the file name in front, as the other readers do. */
function readGeminiConversation({ messages, system, layout, source }: RawConversation): ParsedConversation {
  try {
    const conversation = geminiConversation(messages, system);
    return { conversation, format: 'gemini', layout, geminiContents: messages };
  } catch (error) {
    if (!CompactError.isInstance(error) || source === undefined) throw error;
    const message = error.message.replace(`${error.path}: `, '');
    throw new CompactError(message, { code: error.code, path: `${source}: ${error.path}`, cause: error });
  }
}

export const geminiDialect: WireDialect = {
  format: 'gemini',
  conversationField: 'contents',
  cacheBreakpoints: 'none',
  compactorErrors: 'body-rules',
  readConversation: readGeminiConversation,
  serializeConversation: (conversation, { jsonl = false }) => serializeGemini(conversation, jsonl),
  validate: (messages, problems) => validateGeminiContents(messages, problems),
  // The history @google/genai's chat keeps ends with the model's calls until the client answers.
  takesTrailingCalls: true,
  fileProblems: ({ conversation, geminiContents }) =>
    collectProblems((problems) =>
      validateGeminiContents(geminiContents ?? toGeminiContents(conversation.messages), problems),
    ),
  requestProblems: (body) => collectProblems((problems) => validateGeminiContents(body.contents, problems)),
  readRequest: readGeminiRequest,
  usageOf: geminiUsage,
  // Every chunk repeats the usage so far; the last one holds the answer's.
  eventUsage: (event, sofar) => geminiUsage(event) ?? sofar,
  // `{ error: { code, message, status } }`; the Gemini SDK has no retry header to honour.
  summaryCall: geminiSummaryCall,
  answerText: geminiAnswerText,
  errorAnswer: (status, message) => ({
    body: { error: { code: status, message, status: geminiStatusName(status) } },
    headers: {},
  }),
};

/** The google.rpc status name the Gemini API gives with an HTTP status the proxy answers. */
function geminiStatusName(status: number): string {
  switch (status) {
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 503:
    case 502:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}
