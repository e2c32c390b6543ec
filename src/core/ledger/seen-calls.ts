import { fingerprintText } from '../_internal/fingerprint.js';
import { safeJson } from '../_internal/text.js';
import type { ToolUseBlock } from '../model/messages.js';

/**
 * The tool calls a ledger recorded, by id, with the inputs each id was recorded with. A history
 * read again (a caller that sends its originals after a compaction, a provider compaction) repeats
 * calls it recorded: they are not recorded twice. A client that reuses one id on every turn
 * (`call_0`: OpenAI-compatible servers, SWE-agent) makes new calls under an id already recorded:
 * told apart by their input, or, for the same input again (a test run again), by coming after
 * everything recorded (`appended`). Keyed by the id alone, a session reusing ids recorded its first
 * call and no other: no command, error or file read after it, and one turn in all.
 */
export class SeenCalls {
  /** The inputs recorded under each id; undefined for a call restored open from a stored state. */
  private readonly inputs = new Map<string, Set<string> | undefined>();

  /** A call the stored state holds open: its result may come, its call is not recorded again. */
  restoreOpen(id: string): void {
    this.inputs.set(id, undefined);
  }

  /**
   * True when `use` was not recorded yet. `appended`: it comes after everything the ledger read
   * before (the history grew by it), so only a call restored open can be a repeat.
   */
  isNew(use: ToolUseBlock, appended: boolean): boolean {
    const id = String(use.id);
    if (!this.inputs.has(id)) return true;
    const inputs = this.inputs.get(id);
    if (inputs === undefined) return false;
    return appended || !inputs.has(inputPrint(use));
  }

  add(use: ToolUseBlock): void {
    const id = String(use.id);
    const inputs = this.inputs.get(id) ?? new Set<string>();
    inputs.add(inputPrint(use));
    this.inputs.set(id, inputs);
  }
}

function inputPrint(use: ToolUseBlock): string {
  return fingerprintText(`${String(use.name)}\u0000${safeJson(use.input)}`);
}
