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
  serializeConversation: (conversation, { jsonl = false, compactedFrom }) =>
    serializeGemini(conversation, { jsonl, compactedFrom }),
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

/** The google.rpc status name the Gemini API gives with each HTTP code. */
const statusNames: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  529: 'UNAVAILABLE',
};

/**
 * The status name a Gemini error body carries with `code` (`{ error: { code, message, status } }`):
 * Google's name for the code, else `INTERNAL` for a server error and `INVALID_ARGUMENT` for another.
 */
export function geminiStatusName(code: number): string {
  return statusNames[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}
