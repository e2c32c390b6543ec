/** The one line `wrap` prints when the agent exits: what went through the proxy and what it saved. */

import { WIRE_FORMATS } from 'agent-compact/wire';
import type { CacheTokens, FallbackReason, ProxyStats } from '../../proxy/index.js';
import { defaultPriceTable } from '../../proxy/price-table.js';
import { proxyWires } from '../../proxy/wire/proxy-wires.js';
import type { AgentKind } from './agent-launch.js';

/** The default price table's base input price (Claude Sonnet list price, the same as `simulate`'s). */
const INPUT_DOLLARS_PER_TOKEN = defaultPriceTable.inputPerMillion / 1_000_000;

/** A fallback reason longer than this is cut with `…`: the line stays one line. */
const MAX_REASON_CHARACTERS = 90;

/**
 * e.g. `agent-compact: 14 requests, 182,340 tokens sent → 61,020 forwarded, 2 compactions,
 * ~$0.36 saved, dashboard http://127.0.0.1:41234/agent-compact/`; with fallbacks, after the
 * compactions, `3 compactions rejected: messages[1].role: role must be …`.
 *
 * Saved is the input's price with prompt caching (`stats.cacheByApi`: reads at the cache-read price,
 * writes at the cache-write price of the API's provider: 1.25× on Anthropic, free of a premium on
 * OpenAI and Gemini) for what the client sent less the same for what went upstream;
 * the summary calls are left out. When the compactions' cache writes cost more than they saved (a
 * run that ends soon after them), the line says `~$0.00 saved (cache rewrites cost up to ~$0.31 more)`.
 */
export function savingsLine(stats: ProxyStats, dashboard: string): string {
  const number = (value: number) => value.toLocaleString('en-US');
  const compactions = stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard;
  const difference =
    WIRE_FORMATS.reduce((sum, api) => {
      const { sent, forwarded } = stats.cacheByApi[api];
      const writePrice = proxyWires[api].cacheWriteMultiplier;
      return sum + billed(sent, writePrice) - billed(forwarded, writePrice);
    }, 0) * INPUT_DOLLARS_PER_TOKEN;
  const saved = Math.max(0, difference);
  // A run too short to earn back the cache its compactions rewrote cost more: say so, not just $0.
  // At most that much: a compacted request counts as written whole, its unchanged prefix too.
  const lost = difference <= -0.005 ? ` (cache rewrites cost up to ~$${(-difference).toFixed(2)} more)` : '';
  const fallbacks = fallbackParts(stats.fallbackReasons)
    .map((part) => `, ${part}`)
    .join('');
  return `agent-compact: ${plural(stats.requests, 'request')}, ${number(stats.tokensIn)} tokens sent → ${number(stats.tokensOut)} forwarded, ${plural(compactions, 'compaction')}${fallbacks}, ~$${saved.toFixed(2)} saved${lost}, dashboard ${dashboard}`;
}

/**
 * The line after the savings line when every compaction of the run fell back: nothing was compacted,
 * why, and what to do. `undefined` when one went upstream or none was tried.
 */
export function fallbackWarning(stats: ProxyStats): string | undefined {
  const compactions = stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard;
  if (compactions > 0 || stats.fallbacks === 0) return undefined;
  const why = fallbackParts(stats.fallbackReasons).join('; ');
  return (
    `agent-compact: warning: every compaction fell back (${why}), so the agent's requests went upstream ` +
    'as it sent them and nothing was saved. Please report the reason and the request shape it names ' +
    "to agent-compact's issue tracker; run again with --json-log FILE for every request's record."
  );
}

/** Where an agent's model calls go instead of the base URL `wrap` gave it, by kind of agent. */
const bypassHints: Readonly<Partial<Record<AgentKind, string>>> = {
  gemini:
    'Gemini CLI reads GOOGLE_GEMINI_BASE_URL with API-key auth only: set security.auth.selectedType to "gemini-api-key" in ~/.gemini/settings.json and GEMINI_API_KEY',
  opencode:
    'opencode reads the base URL of its Anthropic and OpenAI providers only: a Google or other provider, or a baseURL in its config, goes around the proxy',
};
/** Arguments that make an agent print and exit without calling its model. */
const printOnly = new Set(['--help', '-h', 'help', '--version', '-v', '-V', 'version']);

/**
 * The line after the savings line when the agent ran but no request reached the proxy: its model
 * calls went straight to the provider, and nothing was compacted. `undefined` otherwise, and for a
 * run that only asks the agent for its help or version.
 */
export function bypassWarning(
  stats: ProxyStats,
  kind: AgentKind,
  args: readonly string[],
): string | undefined {
  if (stats.requests > 0 || args.some((arg) => printOnly.has(arg))) return undefined;
  const hint = bypassHints[kind];
  return `agent-compact: warning: no request reached the proxy; if the agent called its model, it went around agent-compact${hint ? ` (${hint})` : ''}.`;
}

/** Base-input-token equivalents of cached input. */
function billed({ read, write }: CacheTokens, writePrice: number): number {
  return read * defaultPriceTable.cacheReadMultiplier + write * writePrice;
}

/** `3 compactions rejected: REASON`, and `1 compaction failed: REASON`: the most frequent reason of each kind. */
function fallbackParts(reasons: readonly FallbackReason[]): string[] {
  const parts: string[] = [];
  for (const kind of ['rejected', 'failed'] as const) {
    const ofKind = reasons.filter((reason) => reason.kind === kind);
    const [first] = ofKind;
    if (first === undefined) continue;
    const total = ofKind.reduce((sum, reason) => sum + reason.count, 0);
    const others = ofKind.length > 1 ? ` (and ${plural(ofKind.length - 1, 'other reason')})` : '';
    parts.push(`${plural(total, 'compaction')} ${kind}: ${cut(first.reason)}${others}`);
  }
  return parts;
}

function cut(reason: string): string {
  return reason.length <= MAX_REASON_CHARACTERS ? reason : `${reason.slice(0, MAX_REASON_CHARACTERS - 1)}…`;
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}
