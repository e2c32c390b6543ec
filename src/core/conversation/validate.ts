/**
 * Checks a conversation against the rules the provider enforces, so a bad transcript is caught
 * with an exact path instead of a 400 from the API. Validation never throws on garbage: anything
 * it cannot read becomes a problem.
 */
import { CompactError } from '../model/errors.js';
import type { ValidationProblem } from '../model/problems.js';
import { CANONICAL_FORMAT, type WireFormat } from '../model/wire-format.js';
import { describe } from '../wire/_internal/validate-helpers.js';
import { validateSystem } from '../wire/anthropic/validate-anthropic.js';
import { dialectOf } from '../wire/dialects.js';
import { introducedProblems } from './relative-problems.js';

/** Options of {@link validateMessages}. */
export interface ValidateOptions {
  /**
   * The wire format of `messages`: Anthropic Messages API, OpenAI Chat Completions, or an OpenAI
   * Responses `input` (a string or items; paths read `input[3].call_id`).
   * @default 'anthropic'
   */
  format?: WireFormat;
  /** The Anthropic system prompt (a string or text blocks), checked when given. */
  system?: unknown;
  /**
   * Accept Anthropic `role: "system"` messages inside `messages`, as the API does for a request
   * that carries a beta allowing them (`mid-conversation-system-2026-04-07`, or
   * `per-turn-control-2026-07-01` that Claude Code 2.1.328+ sends; see `allowsSystemMessages`). They must follow a message and hold text; tool pairing skips them. Without this
   * option they break `invalid-role`, as the API answers without the beta.
   * @default false
   */
  systemMessages?: boolean;
  /**
   * The conversation `messages` was made from (what the client sent, before compaction): the
   * problems it already holds are not reported, each once, wherever it moved to. A shape the
   * client sent is one its provider takes; only what the change itself broke is left (an unpaired
   * call, a lost signature). Checked with the same `format`, `system` and `systemMessages`.
   */
  relativeTo?: unknown;
}

export {
  ANTHROPIC_BETAS,
  allowsSystemMessages,
  MID_CONVERSATION_SYSTEM_BETA,
} from '../wire/anthropic/anthropic-betas.js';

/**
 * Returns every rule the conversation breaks, each with its exact path. An empty array means the
 * provider accepts the conversation. Never throws, whatever `messages` is (only an unknown
 * `format` throws a `CompactError` with code `INVALID_OPTIONS`).
 *
 * Each format's rules live in its dialect (`core/wire/<format>/validate-<format>.ts`). Anthropic: consecutive
 * messages of the same role are allowed (the API merges them), so tool pairing is checked between
 * *turns* — runs of same-role messages.
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
  const { relativeTo, ...absolute } = options ?? {};
  const problems = absoluteProblems(messages, absolute);
  return relativeTo === undefined
    ? problems
    : introducedProblems(absoluteProblems(relativeTo, absolute), problems);
}

function absoluteProblems(
  messages: unknown,
  options: Omit<ValidateOptions, 'relativeTo'>,
): ValidationProblem[] {
  const { format = CANONICAL_FORMAT, system, systemMessages = false } = options;
  const problems: ValidationProblem[] = [];
  // A wrong format is the caller's bug, not a problem of the conversation: it throws.
  const dialect = dialectOf(format, describe);
  if (system !== undefined) validateSystem(system, problems);
  dialect.validate(messages, problems, { systemMessages });
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
