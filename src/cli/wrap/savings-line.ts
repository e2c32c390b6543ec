/** The one line `wrap` prints when the agent exits: what went through the proxy and what it saved. */
import type { ProxyStats } from '../../proxy/index.js';
import { defaultPriceTable } from '../../simulate/prompt-cache.js';

/**
 * The estimate prices saved tokens at the default price table's base input price (Claude Sonnet
 * list price, the same as `simulate`'s): cache discounts and the summary calls are left out.
 */
const INPUT_DOLLARS_PER_TOKEN = defaultPriceTable.inputPerMillion / 1_000_000;

/**
 * e.g. `agent-compact: 14 requests, 182,340 tokens sent → 61,020 forwarded, 2 compactions,
 * ~$0.36 saved, dashboard http://127.0.0.1:41234/agent-compact/`
 */
export function savingsLine(stats: ProxyStats, dashboard: string): string {
  const number = (value: number) => value.toLocaleString('en-US');
  const compactions = stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard;
  const saved = Math.max(0, stats.tokensIn - stats.tokensOut) * INPUT_DOLLARS_PER_TOKEN;
  const plural = (count: number, word: string) => `${number(count)} ${word}${count === 1 ? '' : 's'}`;
  return `agent-compact: ${plural(stats.requests, 'request')}, ${number(stats.tokensIn)} tokens sent → ${number(stats.tokensOut)} forwarded, ${plural(compactions, 'compaction')}, ~$${saved.toFixed(2)} saved, dashboard ${dashboard}`;
}
