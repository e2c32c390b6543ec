/** OpenAI's error body, shared by Chat Completions and Responses (a dialect never imports a sibling). */
import type { DialectErrorAnswer } from '../dialect.js';
import { retryHeaders } from './error-headers.js';

/** OpenAI's error shape `{ error: { message, type, param, code } }` (Responses answers the same). */
export function openAIErrorAnswer(status: number, message: string): DialectErrorAnswer {
  const type = status === 502 ? 'server_error' : 'invalid_request_error';
  return { body: { error: { message, type, param: null, code: null } }, headers: retryHeaders(status) };
}
