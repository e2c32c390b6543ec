/**
 * Internal: the last step of every importer. Checks the conversation, repairs it only when the
 * source itself is broken, and keeps usage aligned with the assistant turns.
 */
import { repairMessages } from '../core/conversation/repair.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message, SystemPrompt } from '../core/model/messages.js';
import { within } from './_json.js';
import type {
  AgentCompaction,
  ImportedTranscript,
  ImportedUsage,
  TranscriptFormat,
} from './imported-transcript.js';

/** The pieces an importer collected. `usage` is per assistant message, in order. */
export interface RawImport {
  system?: SystemPrompt | undefined;
  messages: Message[];
  usage: (ImportedUsage | undefined)[];
  format: TranscriptFormat;
  source?: string | undefined;
  /** The agent's own compactions, with indexes into `messages` as collected. */
  compactions?: AgentCompaction[] | undefined;
}

export function finishImport({
  system,
  messages,
  usage,
  format,
  source,
  compactions,
}: RawImport): ImportedTranscript {
  const meta: ImportedTranscript['meta'] = { format };
  if (source !== undefined) meta.source = source;
  let finalMessages = messages;
  let finalUsage = usage;
  if (validateMessages(messages).length > 0) {
    // A conversation no repair makes valid is refused with the file it came from.
    const repaired = within(source, () => repairMessages(messages));
    finalMessages = repaired.messages;
    meta.repairs = repaired.changes;
    finalUsage = realignUsage(messages, repaired.messages, usage);
  }
  const conversation: ImportedTranscript['conversation'] = { messages: finalMessages };
  if (system !== undefined) conversation.system = system;
  const result: ImportedTranscript = { conversation, usage: finalUsage, meta };
  if (compactions !== undefined && compactions.length > 0) {
    result.compactions =
      finalMessages === messages
        ? compactions
        : compactions.map((compaction) => ({
            ...compaction,
            index: realignIndex(messages, finalMessages, compaction.index),
          }));
  }
  return result;
}

/**
 * Where a cut between messages lands after repair merged or dropped some: after the same number of
 * assistant messages, and after the user message that followed the last of them when there was one.
 */
function realignIndex(before: readonly Message[], after: readonly Message[], index: number): number {
  const head = before.slice(0, index);
  const assistants = head.filter((message) => message.role === 'assistant').length;
  const trailingUser = head.length > 0 && head.at(-1)!.role !== 'assistant' ? 1 : 0;
  let seen = 0;
  for (const [position, message] of after.entries()) {
    if (message.role !== 'assistant') continue;
    seen++;
    if (seen === assistants) {
      const next = after[position + 1];
      return position + 1 + (trailingUser && next !== undefined && next.role !== 'assistant' ? 1 : 0);
    }
  }
  return assistants === 0 ? Math.min(trailingUser, after.length) : after.length;
}

/**
 * Repair can merge or drop messages. Usage follows an assistant message by identity where repair
 * kept the object, by position when the number of assistant turns is unchanged, and is dropped
 * otherwise (a merged turn has no single request).
 */
function realignUsage(
  before: readonly Message[],
  after: readonly Message[],
  usage: readonly (ImportedUsage | undefined)[],
): (ImportedUsage | undefined)[] {
  const assistantsBefore = before.filter((message) => message.role === 'assistant');
  const assistantsAfter = after.filter((message) => message.role === 'assistant');
  if (assistantsBefore.length === assistantsAfter.length)
    return assistantsAfter.map((_, turn) => usage[turn]);
  const usageByMessage = new Map<Message, ImportedUsage | undefined>();
  assistantsBefore.forEach((message, turn) => {
    usageByMessage.set(message, usage[turn]);
  });
  return assistantsAfter.map((message) => usageByMessage.get(message));
}
