/** Errors the proxy itself answers with, in each provider's own error shape so clients read them. */

import type { ServerResponse } from 'node:http';
import { writeGeminiProxyError } from './gemini/gemini-proxy.js';

/**
 * Writes an error the way the provider would: Anthropic `{ type: 'error', error: { type, message } }`,
 * OpenAI `{ error: { message, type, param, code } }`.
 */
export function writeProviderError(
  response: ServerResponse,
  provider: 'anthropic' | 'openai' | 'gemini',
  status: number,
  message: string,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (provider === 'gemini') {
    writeGeminiProxyError(response, status, message);
    return;
  }
  const body =
    provider === 'anthropic'
      ? { type: 'error', error: { type: anthropicErrorType(status), message } }
      : {
          error: {
            message,
            type: status === 502 ? 'server_error' : 'invalid_request_error',
            param: null,
            code: null,
          },
        };
  // The same request again cannot fit under the cap: only server-side failures are worth a retry.
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-should-retry': status === 413 ? 'false' : 'true',
  });
  response.end(JSON.stringify(body));
}

/** Anthropic's error type for a status the proxy answers with itself. */
function anthropicErrorType(status: number): string {
  if (status === 413) return 'request_too_large';
  return status === 502 ? 'api_error' : 'invalid_request_error';
}

/**
 * An error's first line, for logs, fallback records and error answers: never the headers or bodies
 * an SDK or fetch error may carry on later lines, so no key can appear in it.
 */
export function errorSummary(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] || (error instanceof Error ? error.name : 'unknown error');
}
