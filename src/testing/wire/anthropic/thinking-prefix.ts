/**
 * Claude's preserved thinking on the scripted server (`checksThinkingPrefix` models): each thinking
 * block the server writes is signed with a print of the messages it was written after, and a
 * request that sends one back after other messages gets the API's 400, as a real account created
 * since 31 August 2026 does. Only the messages are printed (an agent keeps `system` and `tools` as
 * they were; the proxy never changes them), as their content reads: `cache_control` aside (clients
 * move it), a string the same as its one text block, and without `role: "system"` messages
 * (Claude Code's turn-scoped ones, with their `output_config`, come and go between requests, as the
 * API lets them).
 */
import { createHash } from 'node:crypto';
import { checksThinkingPrefix } from 'agent-compact/wire';
import { invalidRequest, type WireError } from '../../_wire.js';
import { anthropicMessageUnits } from '../../prompt-usage.js';

const signedPattern = /^scripted-signature-\d+\.([0-9a-f]{16})$/;

/** The signature of the thinking block the `answerNumber`th answer opens with, on `body`'s messages. */
export function thinkingSignature(body: Record<string, unknown>, answerNumber: number): string {
  const signature = `scripted-signature-${answerNumber}`;
  if (!checksThinkingPrefix(body.model)) return signature;
  return `${signature}.${prefixPrint(Array.isArray(body.messages) ? body.messages : [])}`;
}

/**
 * The API's 400 for the first thinking block whose messages before it are not those it was written
 * after; none when the model does not check, or the request asks for such blocks to be dropped.
 */
export function thinkingPrefixProblem(body: Record<string, unknown>): WireError | undefined {
  if (!checksThinkingPrefix(body.model) || dropsMismatchedBlocks(body)) return undefined;
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  for (const [messageIndex, message] of messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const [blockIndex, block] of content.entries()) {
      const signed = signedPattern.exec(String((block as { signature?: unknown } | null)?.signature ?? ''));
      if (signed === null || signed[1] === prefixPrint(messages.slice(0, messageIndex))) continue;
      const path = `messages.${messageIndex}.content.${blockIndex}`;
      return invalidRequest(
        `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`,
        path,
      );
    }
  }
  return undefined;
}

function dropsMismatchedBlocks(body: Record<string, unknown>): boolean {
  const binding = (body.thinking as { block_binding?: { prefix_mismatch_behavior?: unknown } } | undefined)
    ?.block_binding;
  return binding?.prefix_mismatch_behavior === 'drop_block';
}

/**
 * A short print of the conversation's messages as the provider reads them (the prompt cache's
 * units), without `role: "system"` messages (see the module comment).
 */
function prefixPrint(messages: readonly unknown[]): string {
  const conversation = messages.filter(
    (message) => (message as { role?: unknown } | null)?.role !== 'system',
  );
  const read = anthropicMessageUnits(conversation).map((unit) => unit.value);
  return createHash('sha256').update(JSON.stringify(read)).digest('hex').slice(0, 16);
}
