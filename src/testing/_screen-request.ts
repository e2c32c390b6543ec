/**
 * The checks every API on the scripted server makes before it answers — route, JSON, key — then
 * the format's own request checks ({@link AnswerWriter.checkRequest}), each failing with the
 * provider's own 4xx error shape.
 */
import type { IncomingMessage } from 'node:http';
import { invalidRequest, type WireError } from './_wire.js';
import type { ResponseOutcome } from './script.js';
import type { AnswerWriter } from './wire/scripted-wire.js';

/** A request that cannot get a scripted answer, or its parsed body. */
export type ScreenedRequest =
  | {
      kind: 'reject';
      body: Record<string, unknown>;
      stream: boolean;
      outcome: ResponseOutcome;
      error: WireError;
    }
  | { kind: 'accept'; body: Record<string, unknown>; stream: boolean };

/** The provider's checks before an answer, in its order: route, JSON, key, request rules. */
export function screenRequest(
  incoming: IncomingMessage,
  {
    path,
    writer,
    rawBody,
    validation,
    countOnly,
  }: {
    path: string;
    writer: AnswerWriter;
    rawBody: string;
    validation: 'provider-rules' | 'off';
    countOnly: boolean;
  },
): ScreenedRequest {
  const method = incoming.method ?? 'GET';
  const knownPath = method === 'POST' && (writer.paths.includes(path) || countOnly);
  if (!knownPath) {
    const error: WireError = {
      status: 404,
      message: `scripted model server: no route for ${method} ${path}`,
      anthropicType: 'not_found_error',
      openAIType: 'invalid_request_error',
    };
    return { kind: 'reject', body: {}, stream: false, outcome: 'not-found', error };
  }
  const body = parseJsonObject(rawBody);
  if (body === undefined) {
    const error = invalidRequest('The request body is not valid JSON.', 'body');
    return { kind: 'reject', body: {}, stream: false, outcome: 'invalid-request', error };
  }
  const stream = body.stream === true;
  if (!hasApiKey(incoming)) {
    return { kind: 'reject', body, stream, outcome: 'unauthorized', error: writer.unauthorized() };
  }
  const shapeError = writer.checkRequest({ body, headers: incoming.headers, validation, countOnly });
  if (shapeError) return { kind: 'reject', body, stream, outcome: 'invalid-request', error: shapeError };
  return { kind: 'accept', body, stream };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return isObject ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function hasApiKey(incoming: IncomingMessage): boolean {
  const key = incoming.headers['x-api-key'] ?? incoming.headers['api-key'] ?? incoming.headers.authorization;
  return typeof key === 'string' && key.trim() !== '' && key.trim() !== 'Bearer';
}
