import type { Message } from '../conversation/types.js';

/**
 * Where an earlier provider-side compaction ends: the index of the last message holding a
 * `compaction` block that carries a summary (Anthropic server-side compaction; OpenAI Responses
 * `compaction` items read into the canonical model the same way), or -1. The provider drops what
 * precedes such a block and the block itself is signed, so the compactor leaves everything up to
 * and including that message as it came. A block with neither `content` nor `encrypted_content`
 * is a failed compaction the provider ignores, and no boundary.
 */
export function providerCompactionBoundary(messages: readonly Message[]): number {
  return messages.findLastIndex(
    (message) =>
      Array.isArray(message.content) &&
      message.content.some(
        (block) =>
          typeof block === 'object' &&
          block !== null &&
          block.type === 'compaction' &&
          (isPresent((block as { content?: unknown }).content) ||
            isPresent((block as { encrypted_content?: unknown }).encrypted_content)),
      ),
  );
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}
