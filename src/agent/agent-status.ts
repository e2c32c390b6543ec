import type { CompactionLayer } from 'agent-compact';

/** What the agent loop reports while it works; the CLI prints each as a status line on stderr. */
export type AgentStatusEvent =
  | {
      type: 'compaction-end';
      step: number;
      layer: Exclude<CompactionLayer, 'none'>;
      tokensBefore: number;
      tokensAfter: number;
      archived: number;
    }
  | {
      type: 'model-response';
      step: number;
      /** Prompt tokens of the request by the provider's usage, or the compactor's count. */
      contextTokens: number;
      contextWindow: number;
      outputTokens?: number;
    }
  | {
      type: 'assistant-text';
      step: number;
      text: string;
      /** True when the model called no tool: this text is its answer. */
      final: boolean;
    }
  | { type: 'tool-call'; step: number; name: string; summary: string }
  | { type: 'tool-result'; step: number; name: string; isError: boolean; summary: string }
  | { type: 'step-interrupted'; step: number; reason: string };

/** Receives {@link AgentStatusEvent}s. */
export type AgentStatusHandler = (event: AgentStatusEvent) => void;

/**
 * One status line for an event, e.g. `context 41.2k / 200k tokens (21%)` or
 * `compaction mid: 61.0k → 30.4k tokens, 12 archived`. Assistant text is returned whole.
 *
 * @example
 * const agent = createAgentLoop({ ..., onStatus: (event) => process.stderr.write(`${formatAgentStatus(event)}\n`) });
 */
export function formatAgentStatus(event: AgentStatusEvent): string {
  switch (event.type) {
    case 'compaction-end':
      return `[step ${event.step}] compaction ${event.layer}: ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens, ${event.archived} archived`;
    case 'model-response': {
      const percent =
        event.contextWindow > 0 ? Math.round((event.contextTokens / event.contextWindow) * 100) : 0;
      return `[step ${event.step}] context ${formatTokens(event.contextTokens)} / ${formatTokens(event.contextWindow)} tokens (${percent}%)`;
    }
    case 'assistant-text':
      return event.text;
    case 'tool-call':
      return `[step ${event.step}] → ${event.name}(${event.summary})`;
    case 'tool-result':
      return `[step ${event.step}] ${event.isError ? '✗' : '✓'} ${event.name}: ${event.summary}`;
    case 'step-interrupted':
      return `[step ${event.step}] interrupted: ${event.reason}`;
    default: {
      const unreachable: never = event;
      throw new Error(`unknown status event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `950`, `12.3k`, `200k`. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  const thousands = tokens / 1000;
  return `${thousands >= 100 || Number.isInteger(thousands) ? Math.round(thousands) : thousands.toFixed(1)}k`;
}
