/** The OpenAI Chat Completions API's rules for `messages`. */
import type { ValidationProblem } from '../../model/problems.js';
import { checkMessageObject, checkMessagesArray, describe, isRecord } from '../_internal/validate-helpers.js';

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

/** OpenAI Chat Completions rules: roles, content, and each tool call answered by a `tool` message. */
export function validateOpenAI(messages: unknown, problems: ValidationProblem[]): void {
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
        checkParts(message.content, path, problems);
        break;
      default: {
        const unreachable: never = role;
        throw new Error(`unreachable role ${String(unreachable)}`);
      }
    }
  }
  closeOpenCalls('the end of the conversation');
}

/** Each part of an array content is an object with a string `type`: the API refuses `null`, `3` or `"x"`. */
function checkParts(content: unknown, path: string, problems: ValidationProblem[]): void {
  if (!Array.isArray(content)) return;
  content.forEach((part: unknown, index) => {
    if (isRecord(part) && typeof part.type === 'string') return;
    problems.push({
      path: `${path}.content[${index}]`,
      message: `part must be an object with a string type, got ${describe(part)}`,
      rule: 'invalid-block',
    });
  });
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
  checkParts(message.content, path, problems);
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
  checkParts(content, path, problems);
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
  const calls = checkToolCalls(toolCalls, path, toolCallPaths, problems);
  return { assistantPath: path, calls, answered: new Map() };
}

/** Checks each tool call and returns the ids it opens, each with its path. */
function checkToolCalls(
  toolCalls: readonly unknown[],
  path: string,
  toolCallPaths: Map<string, string>,
  problems: ValidationProblem[],
): Map<string, string> {
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
  return calls;
}
