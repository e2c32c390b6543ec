/** A Gemini answer's usage (`usageMetadata`) in the core's one usage shape. */
import type { ProviderUsage } from '../../model/messages.js';

/** The prompt usage of a Gemini answer (`usageMetadata`), in the core's shape. */
export function geminiUsage(answer: unknown): ProviderUsage | undefined {
  const metadata = (answer as { usageMetadata?: Record<string, unknown> } | undefined)?.usageMetadata;
  if (typeof metadata?.promptTokenCount !== 'number') return undefined;
  // `promptTokenCount` is the whole prompt, cached part included; thoughts are output.
  const usage: ProviderUsage = { prompt_tokens: metadata.promptTokenCount };
  const output = Number(metadata.candidatesTokenCount ?? 0) + Number(metadata.thoughtsTokenCount ?? 0);
  if (output > 0) usage.completion_tokens = output;
  return usage;
}
