/**
 * Compaction of a whole request body (what an agent sends to the provider): only the conversation
 * and its cache breakpoints change; every other field is kept as it came, in the same order.
 */
import type {
  Compactor,
  CompactRequestOptions,
  CompactRequestResult,
  MaybeCompactOptions,
} from '../compactor-options.js';
import { validateMessages } from '../conversation/validate.js';
import { CompactError } from '../model/errors.js';
import type { Message } from '../model/messages.js';
import type { RequestBody, RequestConversation } from '../model/request.js';
import type { WireFormat } from '../model/wire-format.js';
import { dialectOf } from '../wire/dialects.js';
import { countFixedBreakpoints, keepCacheBreakpoints } from './cache-breakpoints.js';
import { readRequestConversation } from './request-conversation.js';
import { detectRequestFormat, isPlainObject, typeName } from './request-format.js';

/**
 * Compacts the conversation of a whole request body with `compactor`; see
 * `Compactor.compactRequest`.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` for a body or field of the wrong type and
 *   `INVALID_TRANSCRIPT` for a conversation that breaks the API's rules, each with its path; and
 *   whatever `maybeCompact` throws.
 */
export async function compactRequestWith<Body extends object>(
  compactor: Pick<Compactor, 'maybeCompact'>,
  body: Body,
  { format, ...options }: CompactRequestOptions = {},
): Promise<CompactRequestResult<Body>> {
  if (!isPlainObject(body)) {
    throw new CompactError(`expected a request body object, got ${typeName(body)}`, {
      code: 'UNREADABLE_INPUT',
    });
  }
  const used = format ?? detectRequestFormat(body);
  try {
    return await compactBody(compactor, body, used, options);
  } catch (error) {
    throw asRequestError(error, body, used);
  }
}

async function compactBody<Body extends object>(
  compactor: Pick<Compactor, 'maybeCompact'>,
  body: Body,
  used: WireFormat,
  options: Omit<CompactRequestOptions, 'format'>,
): Promise<CompactRequestResult<Body>> {
  const conversation = readRequestConversation(body as RequestBody, used);
  const { system, messages, tools } = conversation;
  // The body names its model: one that checks its thinking's prefix gets none after a change.
  const preservedThinking =
    options.preservedThinking ?? dialectOf(used).checksThinkingPrefix?.(body as RequestBody) === true;
  const callOptions: MaybeCompactOptions = {
    ...options,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
    ...(preservedThinking ? { preservedThinking } : {}),
  };
  const result = await compactor.maybeCompact(messages, callOptions).catch((error: unknown) => {
    throw inBodyTerms(error, { body: body as RequestBody, format: used, conversation });
  });
  const summary = {
    format: used,
    layer: result.layer,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    archived: result.archived,
  };
  if (result.messages === messages) return { body, ...summary };
  // maybeCompact keeps what precedes an earlier provider compaction as it came (see the pipeline).
  const after = result.messages;
  const compacted: readonly Message[] =
    dialectOf(used).cacheBreakpoints === 'in-blocks'
      ? keepCacheBreakpoints({
          before: messages,
          after,
          fixedBreakpoints: countFixedBreakpoints(system, tools) + (conversation.extraBreakpoints ?? 0),
        })
      : after;
  // Micro and mid rewrite blocks in place; only hard moves messages.
  const inPlace = result.layer !== 'hard';
  return { body: withMessages(body, conversation, compacted, { inPlace }), ...summary };
}

/**
 * A copy of `body` whose conversation is `messages`, written in the body's own field by
 * `conversation.write`: the same keys in the same order, every other field the same value.
 */
export function withMessages<Body extends object>(
  body: Body,
  conversation: Pick<RequestConversation, 'write'>,
  messages: readonly Message[],
  options: { inPlace?: boolean } = {},
): Body {
  return replaceFields(body, conversation.write(messages, options));
}

/**
 * An `INVALID_TRANSCRIPT` from the compactor names a path into the messages it was given: say it
 * in the body's terms — Anthropic indices shifted by the system messages; for
 * OpenAI and Responses bodies, the first problem of the body's own field by the API's rules.
 */
function inBodyTerms(
  error: unknown,
  {
    body,
    format,
    conversation,
  }: { body: RequestBody; format: WireFormat; conversation: RequestConversation },
): unknown {
  if (!CompactError.isInstance(error) || error.code !== 'INVALID_TRANSCRIPT' || error.path === undefined) {
    return error;
  }
  if (dialectOf(format).compactorErrors === 'body-rules')
    return asRequestError(new Error(error.message), body, format);
  const pathOf = (index: number) => conversation.messagePath?.(index) ?? `messages[${index}]`;
  const inBody = (text: string) =>
    text.replace(/messages\[(\d+)\]/g, (_match, index: string) => pathOf(Number(index)));
  const path = inBody(error.path);
  const message = error.message.startsWith(`${error.path}: `)
    ? error.message.slice(error.path.length + 2)
    : error.message;
  return new CompactError(inBody(message), {
    code: error.code,
    path,
    cause: error.cause,
    ...(error.problems ? { problems: error.problems } : {}),
  });
}

/**
 * Malformed input (a null message, a block of the wrong type) trips the conversion with a raw
 * TypeError: name the first broken rule instead, or at least the field.
 */
function asRequestError(error: unknown, body: RequestBody, format: WireFormat): unknown {
  if (CompactError.isInstance(error)) return error;
  const field = dialectOf(format).conversationField;
  const [first] = validateMessages(body[field], { format });
  if (first) {
    return new CompactError(first.message, { code: 'INVALID_TRANSCRIPT', path: first.path, cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CompactError(`cannot read the conversation: ${reason}`, {
    code: 'UNREADABLE_INPUT',
    path: field,
    cause: error,
  });
}

/** A copy of `body` with the named fields replaced in place: same keys, same order. */
function replaceFields<Body extends object>(body: Body, fields: RequestBody): Body {
  const copy: RequestBody = {};
  for (const [key, value] of Object.entries(body))
    copy[key] = Object.hasOwn(fields, key) ? fields[key] : value;
  return copy as Body;
}
