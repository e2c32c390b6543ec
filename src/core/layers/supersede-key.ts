import { hashText } from '../_internal/archive-ids.js';
import { safeJson, toolResultText } from '../_internal/text.js';
import type { ToolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { partArguments } from '../working-set/file-reads.js';

/**
 * What a tool result is a copy of, so a later copy makes it stale: a file's content (a read, or a
 * write of the whole file), or a command's output (the same command with byte-identical output).
 * A read of part of a file (`offset`, `limit`, a line range) is a copy of that part alone: its
 * key is the file's key, {@link PART_SEPARATOR} and the range, and only a read of the same part or
 * of the whole file, or a whole write, supersedes it. Undefined for results a later one cannot
 * supersede (edits, searches, failures).
 */
export function supersedeKey(
  fact: ToolCallFact | undefined,
  result: ToolResultBlock,
  use?: ToolUseBlock,
): string | undefined {
  if (!fact || result.is_error === true) return undefined;
  switch (fact.kind) {
    case 'read': {
      if (fact.paths.length !== 1) return undefined;
      const part = readPart(use);
      return part === undefined
        ? fileKey(fact.paths[0]!)
        : `${fileKey(fact.paths[0]!)}${PART_SEPARATOR}${part}`;
    }
    case 'change':
      return fact.action === 'write' && fact.paths.length === 1 ? fileKey(fact.paths[0]!) : undefined;
    case 'command':
      return `command\u0000${fact.command}\u0000${hashText(toolResultText(result))}`;
    case 'task':
      // A later task list shows every task the earlier one did, in its newer state.
      return fact.operation.op === 'list' ? 'task-list' : undefined;
    case 'plan':
    case 'other':
      return undefined;
    default: {
      const exhaustive: never = fact;
      throw new Error(`unknown tool call fact ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** Between a file's key and the range of a read of part of it. */
export const PART_SEPARATOR = '\u0000part\u0000';

function fileKey(path: string): string {
  return `file\u0000${path}`;
}

/** The range arguments of a read of part of a file, as one string; undefined for a whole read. */
function readPart(use: ToolUseBlock | undefined): string | undefined {
  const input =
    typeof use?.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {};
  const part = partArguments
    .filter((name) => input[name] !== undefined)
    .map((name) => `${name}=${safeJson(input[name])}`);
  return part.length === 0 ? undefined : part.join(' ');
}
