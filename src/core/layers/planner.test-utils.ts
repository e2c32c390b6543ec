import { ArchiveIds } from '../_internal/archive-ids.js';
import type { Message, ToolUseBlock } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { HistoryIndex } from './history-index.js';
import type { MaskRule, RewriteContext } from './mask.js';

export const counter = createHeuristicCounter();
export const rule: MaskRule = { minTokens: 20, excludeTools: new Set(['todo']) };

/** A rewrite context over `messages` with fresh ids, session `s`, time 0 (recall ids named unless `recall: false`). */
export function contextFor(
  messages: readonly Message[],
  { recall = true }: { recall?: boolean } = {},
): RewriteContext & { index: HistoryIndex } {
  const ids = new ArchiveIds();
  const index = new HistoryIndex(counter, rule, ids, { maxAssistantChars: 80, maxToolInputTokens: 40 });
  index.sync(messages);
  const toolUses = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const toolUse = block as ToolUseBlock;
      toolUses.set(toolUse.id, toolUse);
    }
  }
  return { ids, sessionId: 's', now: 0, toolUse: (id) => toolUses.get(id), index, recall };
}

/** A small session: the task, then `turns` turns of a command whose output has `lines` lines. */
export function smallSession(turns: number, lines = 12): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Fix the build.' }];
  for (let turn = 1; turn <= turns; turn++) {
    const id = `t${turn}`;
    messages.push(
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Turn ${turn}. ${'I will check the build output and then fix what fails. '.repeat(turn % 2 === 0 ? 3 : 1)}`,
          },
          { type: 'tool_use', id, name: 'bash', input: { command: `make step${turn}` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: Array.from(
              { length: lines },
              (_, line) => `step${turn} line ${line}: compiling module ${line}`,
            ).join('\n'),
          },
        ],
      },
    );
  }
  return messages;
}
