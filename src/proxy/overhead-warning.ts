/**
 * A one-time warning when the thresholds sit below the fixed overhead of the first request seen
 * (system prompt, tools and first message: about 19k tokens for Claude Code). Compaction cannot
 * remove that part, so every request would fall back with nothing to show why.
 */
import { defaultThresholds, dialects } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';

/** Characters per token of the estimate (the core heuristic's ratio for prose and code). */
const CHARACTERS_PER_TOKEN = 4;
/** Mid as a fraction of `--window` (the CLI help's 60%). */
const MID_FRACTION_OF_WINDOW = 0.6;

/** What the warning needs to know of the proxy's settings. */
export interface OverheadWarningSettings {
  thresholds?: { mid?: number; hard?: number };
  contextWindow?: number;
  log?: (line: string) => void;
}

/** Returns a function to call with each request body; it logs at most once. */
export function createOverheadWarning({
  thresholds,
  contextWindow,
  log,
}: OverheadWarningSettings): (api: WireFormat, body: Record<string, unknown>) => void {
  let checked = log === undefined;
  const mid =
    thresholds?.mid ??
    (contextWindow === undefined
      ? defaultThresholds.mid
      : Math.round(contextWindow * MID_FRACTION_OF_WINDOW));
  return (api, body) => {
    if (checked) return;
    checked = true;
    const overhead = fixedOverheadTokens(api, body);
    if (overhead < mid) return;
    log?.(
      `warning: the mid threshold (${mid} tokens) sits below this client's fixed overhead of about ${overhead} tokens (system, tools and first message), which compaction cannot remove: every request will go upstream uncompacted. Raise --mid/--hard or set --window.`,
    );
  };
}

/** About how many tokens the system prompt, tools and first message of a request take. */
function fixedOverheadTokens(api: WireFormat, body: Record<string, unknown>): number {
  const conversation = body[dialects[api].conversationField];
  const first = Array.isArray(conversation) ? conversation[0] : conversation;
  const parts = [body.system, body.instructions, body.tools, first].filter((part) => part !== undefined);
  const characters = parts.reduce<number>((total, part) => total + JSON.stringify(part).length, 0);
  return Math.round(characters / CHARACTERS_PER_TOKEN);
}
