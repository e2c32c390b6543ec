/**
 * Checks a conversation against the rules the provider enforces, so a bad transcript is caught
 * with an exact path instead of a 400 from the API. Validation never throws on garbage: anything
 * it cannot read becomes a problem.
 */
import { CompactError } from '../errors.js';
import { validateGeminiContents } from '../wire/gemini/validate-gemini.js';
import type { MessageFormat } from './types.js';
import { validateResponsesInput } from './validate-responses.js';

/** The name of the rule a {@link ValidationProblem} breaks. */
export type ValidationRule =
  /** `messages` is not an array. */
  | 'messages-not-array'
  /** A message is not an object. */
  | 'message-not-object'
  /** A message's role is not one the format allows. */
  | 'invalid-role'
  /** A message's content is neither a string nor an array (or, for OpenAI, null). */
  | 'invalid-content'
  /** A block is not an object with a string `type`, or a known block has the wrong field types. */
  | 'invalid-block'
  /** A `tool_use` block lacks a string `id`, a string `name` or an object `input`. */
  | 'invalid-tool-use'
  /** A `tool_result` block lacks a string `tool_use_id` or has content of the wrong type. */
  | 'invalid-tool-result'
  /** The system prompt is not a string or an array of non-empty text blocks. */
  | 'invalid-system'
  /** The first message is not a user message (Anthropic). */
  | 'first-message-not-user'
  /** An Anthropic `role: "system"` message opens the conversation instead of following a turn. */
  | 'misplaced-system-message'
  /** String content is empty or whitespace only (Anthropic). */
  | 'empty-content'
  /** Content is an empty block list (Anthropic). */
  | 'empty-block-list'
  /** A text block is empty or whitespace only (Anthropic). */
  | 'empty-text-block'
  /** A `tool_use` block sits in a user message. */
  | 'tool-use-in-user-message'
  /** A `tool_result` block sits in an assistant message. */
  | 'tool-result-in-assistant-message'
  /** Two `tool_use` blocks share an id. */
  | 'duplicate-tool-use-id'
  /** A `tool_use` has no `tool_result` in the next user turn. */
  | 'unanswered-tool-use'
  /** The conversation ends with an assistant `tool_use` that has no result. */
  | 'trailing-tool-use'
  /** A `tool_result` answers no `tool_use` of the previous assistant turn. */
  | 'orphan-tool-result'
  /** A second `tool_result` for the same `tool_use`. */
  | 'duplicate-tool-result'
  /** A `tool_result` comes after a block of another type in its user turn. */
  | 'tool-result-not-first'
  /** An OpenAI tool call lacks a string `id`, `function.name` or `function.arguments`. */
  | 'invalid-tool-call'
  /** An OpenAI `tool` message lacks a string `tool_call_id`. */
  | 'invalid-tool-message'
  /** An OpenAI `tool` message carries an `image_url` part; the API accepts only text there. */
  | 'image-in-tool-message'
  /** Two OpenAI tool calls share an id. */
  | 'duplicate-tool-call-id'
  /** An OpenAI tool call has no `tool` message before the next non-tool message. */
  | 'unanswered-tool-call'
  /** An OpenAI `tool` message answers no tool call of the assistant message before it. */
  | 'orphan-tool-message'
  /** A second OpenAI `tool` message for the same tool call. */
  | 'duplicate-tool-message'
  /** An OpenAI assistant message with neither content nor tool calls. */
  | 'empty-assistant-message'
  /** A Responses item lacks a field its type requires, or has one of the wrong type. */
  | 'invalid-item'
  /** A Responses `reasoning` item is not directly followed by the message or call it produced. */
  | 'misplaced-reasoning'
  /** A Gemini part holds no known data field, or more than one. */
  | 'unknown-part-type'
  /** A Gemini model step of the current turn lost the `thoughtSignature` of its first call. */
  | 'missing-thought-signature';

/** One rule a conversation breaks, and where. */
export interface ValidationProblem {
  /** Where the problem is, e.g. `messages[12].content[0]`. */
  path: string;
  /** What is wrong, e.g. `tool_result "toolu_1" has no tool_use in messages[11]`. */
  message: string;
  /** The rule broken. */
  rule: ValidationRule;
}

/** Options of {@link validateMessages}. */
export interface ValidateOptions {
  /**
   * The wire format of `messages`: Anthropic Messages API, OpenAI Chat Completions, or an OpenAI
   * Responses `input` (a string or items; paths read `input[3].call_id`).
   * @default 'anthropic'
   */
  format?: MessageFormat;
  /** The Anthropic system prompt (a string or text blocks), checked when given. */
  system?: unknown;
  /**
   * Accept Anthropic `role: "system"` messages inside `messages`, as the API does for a request
   * that carries the `anthropic-beta: mid-conversation-system-2026-04-07` header (Claude Code
   * sends them). They must follow a message and hold text; tool pairing skips them. Without this
   * option they break `invalid-role`, as the API answers without the beta.
   * @default false
   */
  systemMessages?: boolean;
}

/** The `anthropic-beta` value under which the Messages API takes `role: "system"` messages. */
export const MID_CONVERSATION_SYSTEM_BETA = 'mid-conversation-system-2026-04-07';

/**
 * True when an `anthropic-beta` header value (comma-separated, or repeated) names
 * {@link MID_CONVERSATION_SYSTEM_BETA}.
 */
export function allowsSystemMessages(anthropicBeta: string | readonly string[] | undefined): boolean {
  const values = typeof anthropicBeta === 'string' ? [anthropicBeta] : (anthropicBeta ?? []);
  return values.some((value) =>
    value.split(',').some((beta) => beta.trim() === MID_CONVERSATION_SYSTEM_BETA),
  );
}

/**
 * Returns every rule the conversation breaks, each with its exact path. An empty array means the
 * provider accepts the conversation. Never throws, whatever `messages` is (only an unknown
 * `format` throws a `CompactError` with code `INVALID_OPTIONS`).
 *
 * Anthropic: consecutive messages of the same role are allowed (the API merges them), so tool
 * pairing is checked between *turns* — runs of same-role messages.
 *
 * @example
 * const problems = validateMessages([
 *   { role: 'user', content: 'list the files' },
 *   { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] },
 * ]);
 * // [{ path: 'messages[1].content[0]', rule: 'trailing-tool-use',
 * //    message: 'tool_use "toolu_1" ends the conversation without a tool_result' }]
 */
export function validateMessages(messages: unknown, options: ValidateOptions = {}): ValidationProblem[] {
  const { format = 'anthropic', system, systemMessages = false } = options ?? {};
  const problems: ValidationProblem[] = [];
  if (system !== undefined) validateSystem(system, problems);
  switch (format) {
    case 'anthropic':
      validateAnthropic(messages, problems, systemMessages);
      break;
    case 'openai':
      validateOpenAI(messages, problems);
      break;
    case 'responses':
      validateResponsesInput(messages, problems);
      break;
    case 'gemini':
      validateGeminiContents(messages, problems);
      break;
    default: {
      const unreachable: never = format;
      // A wrong format is the caller's bug, not a problem of the conversation.
      throw new CompactError(
        `format must be "anthropic", "openai", "responses" or "gemini", got ${describe(unreachable)}`,
        {
          code: 'INVALID_OPTIONS',
        },
      );
    }
  }
  return problems;
}

/**
 * Like {@link validateMessages}, but throws when the conversation breaks any rule.
 *
 * @throws {CompactError} code `INVALID_TRANSCRIPT`, with the first problem's `path` and message and
 *   every problem on `problems`.
 * @example
 * assertValidMessages(messages, { format: 'openai' }); // throws on the first broken rule
 */
export function assertValidMessages(messages: unknown, options: ValidateOptions = {}): void {
  const problems = validateMessages(messages, options);
  const [first] = problems;
  if (!first) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
  throw new CompactError(`${first.message}${more}`, {
    code: 'INVALID_TRANSCRIPT',
    path: first.path,
    problems,
  });
}

type Role = 'user' | 'assistant';

interface ToolUseReference {
  id: string;
  path: string;
}

/** A run of consecutive same-role messages: what the Anthropic API sees as one message. */
interface Turn {
  role: Role;
  firstIndex: number;
  lastIndex: number;
  toolUses: ToolUseReference[];
  toolResults: ToolUseReference[];
  /** Path of the first block that is not a tool_result, for the tool-results-first rule. */
  firstOtherBlockPath: string | undefined;
}

function validateSystem(system: unknown, problems: ValidationProblem[]): void {
  if (typeof system === 'string') return;
  if (!Array.isArray(system)) {
    problems.push({
      path: 'system',
      message: `system must be a string or an array of text blocks, got ${describe(system)}`,
      rule: 'invalid-system',
    });
    return;
  }
  system.forEach((block: unknown, index) => {
    const path = `system[${index}]`;
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
      problems.push({
        path,
        message: 'system blocks must be text blocks with a string `text`',
        rule: 'invalid-system',
      });
    } else if (isBlank(block.text)) {
      problems.push({ path, message: 'system text block must not be empty', rule: 'invalid-system' });
    }
  });
}

function validateAnthropic(messages: unknown, problems: ValidationProblem[], systemMessages: boolean): void {
  if (!checkMessagesArray(messages, problems)) return;
  const turns: Turn[] = [];
  const toolUsePaths = new Map<string, string>();
  let sawFirstMessage = false;
  for (let index = 0; index < messages.length; index++) {
    const message: unknown = messages[index];
    const path = `messages[${index}]`;
    if (!checkMessageObject(message, path, problems)) continue;
    const role = message.role;
    if (role === 'system' && systemMessages) {
      validateSystemMessage(message.content, path, sawFirstMessage, problems);
      continue;
    }
    if (role !== 'user' && role !== 'assistant') {
      const hint = role === 'system' ? ' (pass the system prompt as `system`, not as a message)' : '';
      problems.push({
        path: `${path}.role`,
        message: `role must be "user" or "assistant", got ${describe(role)}${hint}`,
        rule: 'invalid-role',
      });
      continue;
    }
    if (!sawFirstMessage) {
      sawFirstMessage = true;
      if (role !== 'user') {
        problems.push({
          path,
          message: 'the first message must be a user message',
          rule: 'first-message-not-user',
        });
      }
    }
    let turn = turns.at(-1);
    if (!turn || turn.role !== role) {
      turn = {
        role,
        firstIndex: index,
        lastIndex: index,
        toolUses: [],
        toolResults: [],
        firstOtherBlockPath: undefined,
      };
      turns.push(turn);
    }
    turn.lastIndex = index;
    validateAnthropicContent(message.content, path, turn, toolUsePaths, problems);
  }
  checkToolPairing(turns, problems);
}

/**
 * A mid-conversation system message: instructions between turns, never the first message, text
 * only (other typed blocks, such as tool additions of later betas, are left to the provider).
 */
function validateSystemMessage(
  content: unknown,
  path: string,
  afterAMessage: boolean,
  problems: ValidationProblem[],
): void {
  if (!afterAMessage) {
    problems.push({
      path,
      message: 'a system message cannot open the conversation (pass the system prompt as `system`)',
      rule: 'misplaced-system-message',
    });
  }
  const contentPath = `${path}.content`;
  if (typeof content === 'string') {
    if (isBlank(content)) {
      problems.push({
        path: contentPath,
        message: 'content must not be empty or whitespace only',
        rule: 'empty-content',
      });
    }
    return;
  }
  if (!Array.isArray(content) || content.length === 0) {
    problems.push({
      path: contentPath,
      message: `system message content must be a string or a non-empty array of blocks, got ${describe(content)}`,
      rule: Array.isArray(content) ? 'empty-block-list' : 'invalid-content',
    });
    return;
  }
  content.forEach((block: unknown, index) => {
    const blockPath = `${contentPath}[${index}]`;
    if (!isRecord(block) || typeof block.type !== 'string') {
      problems.push({
        path: blockPath,
        message: `block must be an object with a string type, got ${describe(block)}`,
        rule: 'invalid-block',
      });
    } else if (block.type === 'text') checkTextBlock(block, blockPath, problems);
  });
}

function validateAnthropicContent(
  content: unknown,
  messagePath: string,
  turn: Turn,
  toolUsePaths: Map<string, string>,
  problems: ValidationProblem[],
): void {
  const path = `${messagePath}.content`;
  if (typeof content === 'string') {
    if (isBlank(content)) {
      problems.push({ path, message: 'content must not be empty or whitespace only', rule: 'empty-content' });
    }
    turn.firstOtherBlockPath ??= path;
    return;
  }
  if (!Array.isArray(content)) {
    problems.push({
      path,
      message: `content must be a string or an array of blocks, got ${describe(content)}`,
      rule: 'invalid-content',
    });
    return;
  }
  if (content.length === 0) {
    problems.push({ path, message: 'content must not be an empty block list', rule: 'empty-block-list' });
    return;
  }
  content.forEach((block: unknown, blockIndex) => {
    validateAnthropicBlock(block, `${path}[${blockIndex}]`, turn, toolUsePaths, problems);
  });
}

function validateAnthropicBlock(
  block: unknown,
  path: string,
  turn: Turn,
  toolUsePaths: Map<string, string>,
  problems: ValidationProblem[],
): void {
  if (!isRecord(block) || typeof block.type !== 'string') {
    problems.push({
      path,
      message: `block must be an object with a string type, got ${describe(block)}`,
      rule: 'invalid-block',
    });
    return;
  }
  switch (block.type) {
    case 'text':
      checkTextBlock(block, path, problems);
      turn.firstOtherBlockPath ??= path;
      return;
    case 'tool_use': {
      const id = block.id;
      const wrong = [
        typeof id === 'string' ? undefined : 'a string id',
        typeof block.name === 'string' ? undefined : 'a string name',
        isRecord(block.input) ? undefined : 'an object input',
      ].filter((missing) => missing !== undefined);
      if (wrong.length > 0) {
        problems.push({ path, message: `tool_use needs ${wrong.join(', ')}`, rule: 'invalid-tool-use' });
      }
      if (typeof id !== 'string') return;
      if (turn.role === 'user') {
        problems.push({
          path,
          message: `tool_use ${JSON.stringify(id)} is in a user message; only assistant messages may call tools`,
          rule: 'tool-use-in-user-message',
        });
        return;
      }
      const firstPath = toolUsePaths.get(id);
      if (firstPath !== undefined) {
        problems.push({
          path,
          message: `tool_use id ${JSON.stringify(id)} is already used at ${firstPath}`,
          rule: 'duplicate-tool-use-id',
        });
      } else {
        toolUsePaths.set(id, path);
      }
      turn.toolUses.push({ id, path });
      return;
    }
    case 'tool_result': {
      const id = block.tool_use_id;
      if (typeof id !== 'string') {
        problems.push({
          path,
          message: 'tool_result needs a string tool_use_id',
          rule: 'invalid-tool-result',
        });
      }
      checkToolResultContent(block.content, path, problems);
      if (typeof id !== 'string') return;
      if (turn.role === 'assistant') {
        problems.push({
          path,
          message: `tool_result ${JSON.stringify(id)} is in an assistant message; tool results belong in user messages`,
          rule: 'tool-result-in-assistant-message',
        });
        return;
      }
      if (turn.firstOtherBlockPath !== undefined) {
        problems.push({
          path,
          message: `tool_result ${JSON.stringify(id)} comes after ${turn.firstOtherBlockPath}; tool_results must come first in a user turn`,
          rule: 'tool-result-not-first',
        });
      }
      turn.toolResults.push({ id, path });
      return;
    }
    default:
      // Images, thinking and block types this library does not model pass untouched.
      turn.firstOtherBlockPath ??= path;
  }
}

function checkTextBlock(block: Record<string, unknown>, path: string, problems: ValidationProblem[]): void {
  if (typeof block.text !== 'string') {
    problems.push({
      path,
      message: `text block needs a string text, got ${describe(block.text)}`,
      rule: 'invalid-block',
    });
  } else if (isBlank(block.text)) {
    problems.push({
      path,
      message: 'text block must not be empty or whitespace only',
      rule: 'empty-text-block',
    });
  }
}

function checkToolResultContent(content: unknown, path: string, problems: ValidationProblem[]): void {
  if (content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content)) {
    problems.push({
      path: `${path}.content`,
      message: `tool_result content must be a string or an array of blocks, got ${describe(content)}`,
      rule: 'invalid-tool-result',
    });
    return;
  }
  content.forEach((inner: unknown, index) => {
    const innerPath = `${path}.content[${index}]`;
    if (!isRecord(inner) || typeof inner.type !== 'string') {
      problems.push({
        path: innerPath,
        message: `block must be an object with a string type, got ${describe(inner)}`,
        rule: 'invalid-block',
      });
    } else if (inner.type === 'text') {
      checkTextBlock(inner, innerPath, problems);
    }
  });
}

function checkToolPairing(turns: readonly Turn[], problems: ValidationProblem[]): void {
  turns.forEach((turn, turnIndex) => {
    if (turn.role === 'user') {
      const previous = turnIndex > 0 ? turns[turnIndex - 1] : undefined;
      const toolUseIds = new Set(previous?.toolUses.map((toolUse) => toolUse.id));
      const answeredAt = new Map<string, string>();
      for (const result of turn.toolResults) {
        const quoted = JSON.stringify(result.id);
        const firstAnswer = answeredAt.get(result.id);
        if (!toolUseIds.has(result.id)) {
          const where = previous
            ? `in ${turnRange(previous)}`
            : 'before it: no assistant message precedes it';
          problems.push({
            path: result.path,
            message: `tool_result ${quoted} has no tool_use ${where}`,
            rule: 'orphan-tool-result',
          });
        } else if (firstAnswer !== undefined) {
          problems.push({
            path: result.path,
            message: `tool_result ${quoted} answers a tool_use already answered at ${firstAnswer}`,
            rule: 'duplicate-tool-result',
          });
        } else {
          answeredAt.set(result.id, result.path);
        }
      }
      return;
    }
    const next = turns[turnIndex + 1];
    const answered = new Set(next?.toolResults.map((result) => result.id));
    for (const toolUse of turn.toolUses) {
      if (answered.has(toolUse.id)) continue;
      const quoted = JSON.stringify(toolUse.id);
      problems.push(
        next
          ? {
              path: toolUse.path,
              message: `tool_use ${quoted} has no tool_result in ${turnRange(next)}`,
              rule: 'unanswered-tool-use',
            }
          : {
              path: toolUse.path,
              message: `tool_use ${quoted} ends the conversation without a tool_result`,
              rule: 'trailing-tool-use',
            },
      );
    }
  });
}

function turnRange(turn: Turn): string {
  return turn.firstIndex === turn.lastIndex
    ? `messages[${turn.firstIndex}]`
    : `messages[${turn.firstIndex}..${turn.lastIndex}]`;
}

type OpenAIRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

const openAIRoles = new Set<unknown>(['system', 'developer', 'user', 'assistant', 'tool']);

function isOpenAIRole(role: unknown): role is OpenAIRole {
  return openAIRoles.has(role);
}

/** The tool calls of the last assistant message, open until a non-tool message closes them. */
interface OpenToolCalls {
  assistantPath: string;
  calls: Map<string, string>;
  answered: Map<string, string>;
}

function validateOpenAI(messages: unknown, problems: ValidationProblem[]): void {
  if (!checkMessagesArray(messages, problems)) return;
  const toolCallPaths = new Map<string, string>();
  let open: OpenToolCalls | undefined;
  const closeOpenCalls = (before: string): void => {
    if (!open) return;
    for (const [id, path] of open.calls) {
      if (open.answered.has(id)) continue;
      problems.push({
        path,
        message: `tool_call ${JSON.stringify(id)} has no tool message before ${before}`,
        rule: 'unanswered-tool-call',
      });
    }
    open = undefined;
  };
  for (let index = 0; index < messages.length; index++) {
    const message: unknown = messages[index];
    const path = `messages[${index}]`;
    if (!checkMessageObject(message, path, problems)) continue;
    const role = message.role;
    if (!isOpenAIRole(role)) {
      problems.push({
        path: `${path}.role`,
        message: `role must be one of system, developer, user, assistant, tool; got ${describe(role)}`,
        rule: 'invalid-role',
      });
      continue;
    }
    switch (role) {
      case 'tool':
        open = validateOpenAIToolMessage(message, path, open, problems);
        break;
      case 'assistant':
        closeOpenCalls(path);
        open = validateOpenAIAssistant(message, path, toolCallPaths, problems);
        break;
      case 'system':
      case 'developer':
      case 'user':
        closeOpenCalls(path);
        if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
          problems.push({
            path: `${path}.content`,
            message: `content must be a string or an array of parts, got ${describe(message.content)}`,
            rule: 'invalid-content',
          });
        }
        break;
      default: {
        const unreachable: never = role;
        throw new Error(`unreachable role ${String(unreachable)}`);
      }
    }
  }
  closeOpenCalls('the end of the conversation');
}

function validateOpenAIToolMessage(
  message: Record<string, unknown>,
  path: string,
  open: OpenToolCalls | undefined,
  problems: ValidationProblem[],
): OpenToolCalls | undefined {
  if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
    problems.push({
      path: `${path}.content`,
      message: `content must be a string or an array of parts, got ${describe(message.content)}`,
      rule: 'invalid-content',
    });
  }
  if (Array.isArray(message.content)) {
    message.content.forEach((part: unknown, partIndex) => {
      if (!isRecord(part) || part.type !== 'image_url') return;
      problems.push({
        path: `${path}.content[${partIndex}]`,
        message:
          'a tool message accepts only text parts; send the image in a user message after the tool messages',
        rule: 'image-in-tool-message',
      });
    });
  }
  const id = message.tool_call_id;
  if (typeof id !== 'string') {
    problems.push({
      path: `${path}.tool_call_id`,
      message: `tool message needs a string tool_call_id, got ${describe(id)}`,
      rule: 'invalid-tool-message',
    });
    return open;
  }
  const quoted = JSON.stringify(id);
  if (!open?.calls.has(id)) {
    const where = open ? `of ${open.assistantPath}` : 'directly before it';
    problems.push({
      path,
      message: `tool message ${quoted} answers no tool_call ${where}`,
      rule: 'orphan-tool-message',
    });
    return open;
  }
  const firstAnswer = open.answered.get(id);
  if (firstAnswer !== undefined) {
    problems.push({
      path,
      message: `tool message ${quoted} answers a tool_call already answered at ${firstAnswer}`,
      rule: 'duplicate-tool-message',
    });
  } else {
    open.answered.set(id, path);
  }
  return open;
}

function validateOpenAIAssistant(
  message: Record<string, unknown>,
  path: string,
  toolCallPaths: Map<string, string>,
  problems: ValidationProblem[],
): OpenToolCalls | undefined {
  const { content, tool_calls: toolCalls, refusal } = message;
  if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
    problems.push({
      path: `${path}.content`,
      message: `content must be a string, an array of parts or null, got ${describe(content)}`,
      rule: 'invalid-content',
    });
  }
  const hasContent =
    (typeof content === 'string' && content.length > 0) ||
    (Array.isArray(content) && content.length > 0) ||
    (typeof refusal === 'string' && refusal.length > 0);
  if (toolCalls !== undefined && !Array.isArray(toolCalls)) {
    problems.push({
      path: `${path}.tool_calls`,
      message: `tool_calls must be an array, got ${describe(toolCalls)}`,
      rule: 'invalid-tool-call',
    });
    return undefined;
  }
  if (Array.isArray(toolCalls) && toolCalls.length === 0) {
    // The API rejects an empty tool_calls array; omit the field instead.
    problems.push({
      path: `${path}.tool_calls`,
      message: 'tool_calls must not be empty',
      rule: 'invalid-tool-call',
    });
  }
  if (!hasContent && (!toolCalls || toolCalls.length === 0)) {
    problems.push({
      path,
      message: 'assistant message needs content or tool_calls',
      rule: 'empty-assistant-message',
    });
  }
  if (!toolCalls || toolCalls.length === 0) return undefined;
  const calls = new Map<string, string>();
  toolCalls.forEach((call: unknown, index) => {
    const callPath = `${path}.tool_calls[${index}]`;
    if (!isRecord(call)) {
      problems.push({
        path: callPath,
        message: `tool call must be an object, got ${describe(call)}`,
        rule: 'invalid-tool-call',
      });
      return;
    }
    const fn = call.function;
    const wrong = [
      typeof call.id === 'string' ? undefined : 'a string id',
      isRecord(fn) && typeof fn.name === 'string' ? undefined : 'a string function.name',
      isRecord(fn) && typeof fn.arguments === 'string' ? undefined : 'a string function.arguments',
    ].filter((missing) => missing !== undefined);
    if (wrong.length > 0) {
      problems.push({
        path: callPath,
        message: `tool call needs ${wrong.join(', ')}`,
        rule: 'invalid-tool-call',
      });
    }
    if (typeof call.id !== 'string') return;
    const firstPath = toolCallPaths.get(call.id);
    if (firstPath !== undefined) {
      problems.push({
        path: callPath,
        message: `tool_call id ${JSON.stringify(call.id)} is already used at ${firstPath}`,
        rule: 'duplicate-tool-call-id',
      });
    } else {
      toolCallPaths.set(call.id, callPath);
    }
    if (!calls.has(call.id)) calls.set(call.id, callPath);
  });
  return { assistantPath: path, calls, answered: new Map() };
}

/** Reports `messages` when it is not an array (both formats); true when it is one. */
function checkMessagesArray(messages: unknown, problems: ValidationProblem[]): messages is unknown[] {
  if (Array.isArray(messages)) return true;
  problems.push({
    path: 'messages',
    message: `messages must be an array, got ${describe(messages)}`,
    rule: 'messages-not-array',
  });
  return false;
}

/** Reports a message that is not an object (both formats); true when it is one. */
function checkMessageObject(
  message: unknown,
  path: string,
  problems: ValidationProblem[],
): message is Record<string, unknown> {
  if (isRecord(message)) return true;
  problems.push({
    path,
    message: `message must be an object, got ${describe(message)}`,
    rule: 'message-not-object',
  });
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/** A short, safe description of any value for an error message. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
      return 'undefined';
    case 'object':
      return 'an object';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default: {
      const unreachable: never = typeof value as never;
      return String(unreachable);
    }
  }
}
