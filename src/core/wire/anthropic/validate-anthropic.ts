/**
 * The Anthropic Messages API's rules. Consecutive messages of the same role are allowed (the API
 * merges them), so tool pairing is checked between *turns*: runs of same-role messages.
 */
import type { ValidationProblem } from '../../model/problems.js';
import {
  checkMessageObject,
  checkMessagesArray,
  checkTextBlock,
  describe,
  isBlank,
  isRecord,
} from '../_internal/validate-helpers.js';

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

/** Anthropic Messages rules: roles, content, and tool pairing between turns. */
export function validateAnthropic(
  messages: unknown,
  problems: ValidationProblem[],
  systemMessages: boolean,
): void {
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
    case 'tool_use':
      validateToolUse(block, path, turn, toolUsePaths, problems);
      return;
    case 'tool_result':
      validateToolResult(block, path, turn, problems);
      return;
    default:
      // Other block types pass untouched, once the fields the API requires of them are there.
      checkRequiredFields(block, path, problems);
      turn.firstOtherBlockPath ??= path;
  }
}

/** The fields the API requires of a block type this library does not otherwise read. */
const requiredFields: Readonly<Record<string, Readonly<Record<string, 'string' | 'object'>>>> = {
  thinking: { thinking: 'string', signature: 'string' },
  redacted_thinking: { data: 'string' },
  image: { source: 'object' },
  document: { source: 'object' },
};

function checkRequiredFields(
  block: Record<string, unknown>,
  path: string,
  problems: ValidationProblem[],
): void {
  for (const [field, kind] of Object.entries(requiredFields[block.type as string] ?? {})) {
    const value = block[field];
    if (kind === 'string' ? typeof value === 'string' : isRecord(value)) continue;
    problems.push({
      path: `${path}.${field}`,
      message: `a ${block.type as string} block needs ${kind === 'string' ? 'a string' : 'an object'} ${field}, got ${describe(value)}`,
      rule: 'invalid-block',
    });
  }
}

/** A `tool_use`: its fields, its place (assistant turns only), and an id not used before. */
function validateToolUse(
  block: Record<string, unknown>,
  path: string,
  turn: Turn,
  toolUsePaths: Map<string, string>,
  problems: ValidationProblem[],
): void {
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
}

/** A `tool_result`: its fields, its place (user turns only, before any other block). */
function validateToolResult(
  block: Record<string, unknown>,
  path: string,
  turn: Turn,
  problems: ValidationProblem[],
): void {
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

/** The Anthropic-style `system` option: a string or non-empty text blocks. */
export function validateSystem(system: unknown, problems: ValidationProblem[]): void {
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
