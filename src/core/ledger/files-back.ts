import { archiveIdInPlaceholder } from '../_internal/placeholder.js';
import { escapeReservedTags, toolResultText } from '../_internal/text.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { LedgerFile } from './ledger-state.js';

/** How many files and tokens of their content go back after a hard compaction. */
export interface FilesBackSettings {
  maxFiles: number;
  maxTokens: number;
}

/**
 * The latest content of the most recently touched files, newest first, as `<file>` blocks, for
 * after a hard summary: the last Read result or the content a Write wrote. A file whose latest
 * touch was a partial edit (its content is not in the history), whose result was masked, or that
 * the kept turn already shows, is skipped; a file that does not fit the budget whole is skipped.
 */
export function filesBack(
  files: readonly LedgerFile[],
  history: readonly Message[],
  keptTurn: readonly Message[],
  settings: FilesBackSettings,
  counter: TokenCounter,
): string[] {
  if (settings.maxFiles <= 0 || settings.maxTokens <= 0) return [];
  const kept = new Set(keptTurn.flatMap(toolIds));
  const wanted = new Map<string, LedgerFile>();
  for (let index = files.length - 1; index >= 0 && wanted.size < settings.maxFiles * 2; index--) {
    const file = files[index]!;
    if (!kept.has(file.toolUseId)) wanted.set(file.toolUseId, file);
  }
  const contents = findContents(history, wanted);
  const blocks: string[] = [];
  let tokens = 0;
  for (let index = files.length - 1; index >= 0 && blocks.length < settings.maxFiles; index--) {
    const file = files[index]!;
    const content = contents.get(file.toolUseId);
    if (content === undefined) continue;
    const block = `<file path="${escapeAttribute(file.path)}" as-of="t${file.turn}">\n${escapeReservedTags(content)}\n</file>`;
    const cost = counter.countText(block);
    if (tokens + cost > settings.maxTokens) continue;
    tokens += cost;
    blocks.push(block);
  }
  return blocks;
}

/** The content each wanted call holds: a read's whole result, a write's `content` input. */
function findContents(history: readonly Message[], wanted: Map<string, LedgerFile>): Map<string, string> {
  const contents = new Map<string, string>();
  for (const message of history) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const use = block as ToolUseBlock;
        const file = wanted.get(String(use.id));
        const input = use.input as Record<string, unknown> | undefined;
        if (file?.action === 'write' && typeof input?.content === 'string')
          contents.set(String(use.id), input.content);
      } else if (block.type === 'tool_result') {
        const result = block as ToolResultBlock;
        const file = wanted.get(String(result.tool_use_id));
        if (file?.action !== 'read' || result.is_error === true) continue;
        const text = toolResultText(result);
        if (archiveIdInPlaceholder(text) === undefined && text.trim() !== '')
          contents.set(String(result.tool_use_id), text);
      }
    }
  }
  return contents;
}

function toolIds(message: Message): string[] {
  if (typeof message.content === 'string') return [];
  return message.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [String((block as ToolUseBlock).id)]
      : block.type === 'tool_result'
        ? [String((block as ToolResultBlock).tool_use_id)]
        : [],
  );
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
