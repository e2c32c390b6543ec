import { hashText } from '../_internal/archive-ids.js';
import { toolResultText } from '../_internal/text.js';
import type { ToolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolResultBlock } from '../model/messages.js';

/**
 * What a tool result is a copy of, so a later copy makes it stale: a file's content (a read, or a
 * write of the whole file), or a command's output (the same command with byte-identical output).
 * Undefined for results a later one cannot supersede (edits, searches, failures).
 */
export function supersedeKey(fact: ToolCallFact | undefined, result: ToolResultBlock): string | undefined {
  if (!fact || result.is_error === true) return undefined;
  switch (fact.kind) {
    case 'read':
      return fact.paths.length === 1 ? `file\u0000${fact.paths[0]}` : undefined;
    case 'change':
      return fact.action === 'write' && fact.paths.length === 1 ? `file\u0000${fact.paths[0]}` : undefined;
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
