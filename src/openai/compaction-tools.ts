import { compactTool, recallTool } from '../core/archive/compaction-tools.js';

/** The `recall` tool in OpenAI function form (`tools: [recallToolOpenAI]`); run it with `handleRecall`. */
export const recallToolOpenAI = {
  type: 'function',
  function: {
    name: recallTool.name,
    description: recallTool.description,
    parameters: recallTool.inputSchema,
  },
} as const;

/** The `compact` tool in OpenAI function form; read its input with `parseCompactInput`. */
export const compactToolOpenAI = {
  type: 'function',
  function: {
    name: compactTool.name,
    description: compactTool.description,
    parameters: compactTool.inputSchema,
  },
} as const;
