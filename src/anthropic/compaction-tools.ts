import { compactTool, recallTool } from '../core/archive/compaction-tools.js';

/** The `recall` tool in Anthropic Messages form (`tools: [recallToolAnthropic]`); run it with `handleRecall`. */
export const recallToolAnthropic = {
  name: recallTool.name,
  description: recallTool.description,
  input_schema: recallTool.inputSchema,
} as const;

/** The `compact` tool in Anthropic Messages form; read its input with `parseCompactInput`. */
export const compactToolAnthropic = {
  name: compactTool.name,
  description: compactTool.description,
  input_schema: compactTool.inputSchema,
} as const;
