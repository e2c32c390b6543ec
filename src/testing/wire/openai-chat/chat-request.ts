/**
 * What the scripted server checks in a Chat Completions request before answering, with the API's
 * own 400 messages: the fields, `stream_options` without `stream`, the content part types each
 * role takes, then the conversation's rules.
 */
import { validateMessages } from 'agent-compact';
import { type UnknownContentType, unknownIn } from '../../_content-types.js';
import { invalidRequest, type WireError } from '../../_wire.js';
import type { CheckedRequest } from '../scripted-wire.js';

/** Content parts by role (the SDK's `ChatCompletion*MessageParam` content). */
const partTypes: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image_url', 'input_audio', 'file']),
  assistant: new Set(['text', 'refusal']),
  system: new Set(['text']),
  developer: new Set(['text']),
  tool: new Set(['text']),
};

/** The first check a Chat Completions request fails, or undefined. */
export function checkChatRequest({ body, validation }: CheckedRequest): WireError | undefined {
  const shapeError = shapeProblem(body);
  if (shapeError || validation === 'off') return shapeError;
  const unknown = unknownPart(body.messages as unknown[]);
  if (unknown) {
    return {
      ...invalidRequest(
        `Invalid value: '${unknown.type}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
        `${unknown.path}.type`,
      ),
      code: 'invalid_value',
    };
  }
  const [first] = validateMessages(body.messages, { format: 'openai' });
  if (!first) return undefined;
  return {
    ...invalidRequest(`Invalid parameter: ${first.path}: ${first.message}`, first.path),
    code: 'invalid_value',
  };
}

function shapeProblem(body: Record<string, unknown>): WireError | undefined {
  if (typeof body.model !== 'string' || body.model === '') {
    return invalidRequest('you must provide a model parameter', null);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return {
      ...invalidRequest(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        'stream_options',
      ),
      code: 'invalid_value',
    };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return {
      ...invalidRequest("Missing required parameter: 'messages'.", 'messages'),
      code: 'missing_required_parameter',
    };
  }
  return undefined;
}

/** The first content part whose type its message's role does not take. */
function unknownPart(messages: readonly unknown[]): UnknownContentType | undefined {
  for (const [messageIndex, message] of messages.entries()) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    const allowed = Object.hasOwn(partTypes, String(role)) ? partTypes[String(role)] : undefined;
    if (!Array.isArray(content) || !allowed) continue;
    for (const [partIndex, part] of content.entries()) {
      const found = unknownIn(part, allowed, `messages[${messageIndex}].content[${partIndex}]`);
      if (found) return found;
    }
  }
  return undefined;
}
