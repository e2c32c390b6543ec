/** Checks every format's validation shares: the messages array, message objects, text blocks. */
import type { ValidationProblem } from '../../model/problems.js';

/** The problems one check pushes, as a list. */
export function collectProblems(check: (problems: ValidationProblem[]) => void): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  check(problems);
  return problems;
}

/** Reports `messages` when it is not an array; true when it is one. */
export function checkMessagesArray(messages: unknown, problems: ValidationProblem[]): messages is unknown[] {
  if (Array.isArray(messages)) return true;
  problems.push({
    path: 'messages',
    message: `messages must be an array, got ${describe(messages)}`,
    rule: 'messages-not-array',
  });
  return false;
}

/** Reports a message that is not an object; true when it is one. */
export function checkMessageObject(
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

export function checkTextBlock(
  block: Record<string, unknown>,
  path: string,
  problems: ValidationProblem[],
): void {
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/** A short, safe description of any value for an error message. */
export function describe(value: unknown): string {
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
