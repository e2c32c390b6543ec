/**
 * Room for command lines on top of the ledger's budget. An agent that reads files through its shell
 * (Codex CLI: `sed -n`, `rg`, `nl`, hundreds of calls) records far more commands than one with a
 * read tool, and a command line costs what it costs: its first 60 characters are what tell it from
 * another. So when the ledger is over its budget, the commands it would drop are kept in up to
 * `maxTokens` more (as the newest instructions are); a ledger within its budget is unchanged.
 */

/**
 * The tokens command lines may take beyond `budget`: what the ledger is over it, at most what its
 * commands cost and at most `maxTokens`.
 *
 * @param total what the whole ledger costs, every item kept
 * @param commandCost what its command lines cost
 */
export function commandAllowance({
  total,
  budget,
  commandCost,
  maxTokens,
}: {
  total: number;
  budget: number;
  commandCost: number;
  maxTokens: number;
}): number {
  return Math.max(0, Math.min(total - budget, commandCost, maxTokens));
}
