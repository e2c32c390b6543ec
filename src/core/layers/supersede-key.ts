import { hashText } from '../_internal/archive-ids.js';
import { toolResultText } from '../_internal/text.js';
import type { ToolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { readPart } from '../working-set/file-reads.js';

/** What a tool result is a copy of (see {@link supersedeKey}). */
export interface CopyKey {
  /** A later result with the same key supersedes this one. */
  key: string;
  /** For a copy of part of a file: the key of the whole file's copy, which supersedes it too. */
  partOf?: string;
}

/**
 * What a tool result is a copy of, so a later copy makes it stale: a file's content (a read, or a
 * write of the whole file), or a command's output (the same command with byte-identical output).
 * A read of part of a file (`offset`, `limit`, a line range) is a copy of that part alone: only a
 * read of the same part, or a copy of the whole file (`partOf`), supersedes it. Undefined for
 * results a later one cannot supersede (edits, searches, failures).
 */
export function supersedeKey(
  fact: ToolCallFact | undefined,
  result: ToolResultBlock,
  use: ToolUseBlock,
): CopyKey | undefined {
  if (!fact || result.is_error === true) return undefined;
  switch (fact.kind) {
    case 'read': {
      if (fact.paths.length !== 1) return undefined;
      const file = fileKey(fact.paths[0]!);
      const part = readPart(use);
      return part === undefined ? { key: file } : { key: `${file}\u0000${part}`, partOf: file };
    }
    case 'change':
      return fact.action === 'write' && fact.paths.length === 1
        ? { key: fileKey(fact.paths[0]!) }
        : undefined;
    case 'command':
      return { key: `command\u0000${fact.command}\u0000${hashText(toolResultText(result))}` };
    case 'task':
      // A later task list shows every task the earlier one did, in its newer state.
      return fact.operation.op === 'list' ? { key: 'task-list' } : undefined;
    case 'plan':
    case 'other':
      return undefined;
    default: {
      const exhaustive: never = fact;
      throw new Error(`unknown tool call fact ${JSON.stringify(exhaustive)}`);
    }
  }
}

function fileKey(path: string): string {
  return `file\u0000${path}`;
}
