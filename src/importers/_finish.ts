/**
 * Internal: the last step of every importer. Checks the conversation, repairs it only when the
 * source itself is broken, and keeps usage aligned with the assistant turns.
 */
import { repairMessages } from '../core/conversation/repair.js';
import type { Message, SystemPrompt } from '../core/conversation/types.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { ImportedTranscript, ImportedUsage, TranscriptFormat } from './imported-transcript.js';

/** The pieces an importer collected. `usage` is per assistant message, in order. */
export interface RawImport {
  system?: SystemPrompt | undefined;
  messages: Message[];
  usage: (ImportedUsage | undefined)[];
  format: TranscriptFormat;
  source?: string | undefined;
}

export function finishImport({ system, messages, usage, format, source }: RawImport): ImportedTranscript {
  const meta: ImportedTranscript['meta'] = { format };
  if (source !== undefined) meta.source = source;
  let finalMessages = messages;
  let finalUsage = usage;
  if (validateMessages(messages).length > 0) {
    const repaired = repairMessages(messages);
    finalMessages = repaired.messages;
    meta.repairs = repaired.changes;
    finalUsage = realignUsage(messages, repaired.messages, usage);
  }
  const conversation: ImportedTranscript['conversation'] = { messages: finalMessages };
  if (system !== undefined) conversation.system = system;
  return { conversation, usage: finalUsage, meta };
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
