/**
 * The `anthropic-beta` values whose request shapes the Anthropic wire format knows, and what each
 * one lets a request hold. Claude Code 2.1.328 and 2.1.332 on their default model send
 * `claude-code-20250219, interleaved-thinking-2025-05-14, context-management-2025-06-27,
 * per-turn-control-2026-07-01, mid-conversation-tool-changes-2026-07-01,
 * thinking-token-count-2026-05-13, advanced-tool-use-2025-11-20, effort-2025-11-24`.
 */

/** What a beta adds to the request shapes the Messages API takes. */
export interface AnthropicBetaShapes {
  /** `role: "system"` messages inside `messages` (after the first message). */
  systemMessages?: boolean;
}

/** The `anthropic-beta` value under which the Messages API takes `role: "system"` messages. */
export const MID_CONVERSATION_SYSTEM_BETA = 'mid-conversation-system-2026-04-07';

/**
 * The betas Claude Code sends today, each with the shapes it allows (an empty entry: a known beta
 * whose fields, such as `output_config.effort` or a tool's `defer_loading`, no rule here checks).
 */
export const ANTHROPIC_BETAS: Readonly<Record<string, AnthropicBetaShapes>> = {
  [MID_CONVERSATION_SYSTEM_BETA]: { systemMessages: true },
  // Claude Code 2.1.328+: system messages at messages[1] (environment, agent types) and every few turns.
  'per-turn-control-2026-07-01': { systemMessages: true },
  // `tool_addition` / `tool_removal` blocks as the tool list changes between turns.
  'mid-conversation-tool-changes-2026-07-01': {},
  'thinking-token-count-2026-05-13': {},
  // Deferred tools (`defer_loading`), `tool_reference` blocks in tool results.
  'advanced-tool-use-2025-11-20': {},
  // `output_config.effort`.
  'effort-2025-11-24': {},
};

/** The betas of `anthropic-beta` header values (comma-separated, or repeated). */
export function betasOf(anthropicBeta: string | readonly string[] | undefined): string[] {
  const values = typeof anthropicBeta === 'string' ? [anthropicBeta] : (anthropicBeta ?? []);
  return values.flatMap((value) => value.split(',').map((beta) => beta.trim()));
}

/** True when a beta of the header lets `role: "system"` messages stand inside `messages`. */
export function allowsSystemMessages(anthropicBeta: string | readonly string[] | undefined): boolean {
  return betasOf(anthropicBeta).some((beta) => ANTHROPIC_BETAS[beta]?.systemMessages === true);
}
