import type { ToolResultContentBlock } from 'agent-compact';

/** What a tool hands back to the loop; becomes a `tool_result` block (`isError` → `is_error`). */
export interface ToolOutcome {
  /** What the model reads: text, or blocks when a recalled result held blocks. */
  content: string | ToolResultContentBlock[];
  /** True when the tool refused or failed; the model reads `content` to learn why. */
  isError: boolean;
}
