/** Errors the proxy itself answers with, in each provider's own error shape so clients read them. */

import type { ServerResponse } from 'node:http';
import { dialects } from 'agent-compact/internal';
import type { ProxyProvider } from './routes.js';

/**
 * Writes an error the way the provider would (its dialect's `errorAnswer`): Anthropic
 * `{ type: 'error', error: { type, message } }`, OpenAI `{ error: { message, type, param, code } }`,
 * Gemini `{ error: { code, message, status } }`.
 */
export function writeProviderError(
  response: ServerResponse,
  provider: ProxyProvider,
  status: number,
  message: string,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const { body, headers } = dialects[provider].errorAnswer(status, message);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/**
 * An error's first line, for logs, fallback records and error answers: never the headers or bodies
 * an SDK or fetch error may carry on later lines, so no key can appear in it.
 */
export function errorSummary(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] || (error instanceof Error ? error.name : 'unknown error');
}
