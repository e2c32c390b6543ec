/**
 * The wire format each real agent speaks to its provider, as the e2e run expects it: the one
 * place the lab's agent specs name a format.
 */
import type { WireFormat } from 'agent-compact/wire';

export const AGENT_FORMATS = {
  claudeCode: 'anthropic',
  codex: 'responses',
  geminiCli: 'gemini',
  opencode: 'anthropic',
} as const satisfies Record<string, WireFormat>;
