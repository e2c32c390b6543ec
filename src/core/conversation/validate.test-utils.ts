import type { ValidationRule } from '../model/problems.js';
import { validateMessages } from './validate.js';

/** Compact form of the problems for table assertions. */
export function found(
  messages: unknown,
  options?: Parameters<typeof validateMessages>[1],
): [ValidationRule, string][] {
  return validateMessages(messages, options).map((problem) => [problem.rule, problem.path]);
}
