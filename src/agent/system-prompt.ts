import type { AgentToolDefinition } from './tool-definitions.js';

/** Options of {@link agentSystemPrompt} and {@link agentIdentity}. */
export interface AgentPromptOptions {
  /** The workspace root (the working directory of every tool). */
  workspace: string;
  /** The tools the model can call. */
  tools: readonly AgentToolDefinition[];
}

/**
 * The reference agent's system prompt: who it is, where it works, its tools and rules.
 *
 * @example
 * const system = agentSystemPrompt({ workspace: process.cwd(), tools: agentToolDefinitions });
 */
export function agentSystemPrompt({ workspace, tools }: AgentPromptOptions): string {
  return [
    "You are agent-compact, a coding agent working in a software project on the user's machine.",
    `Your working directory is ${workspace}. Every path you pass to a tool is relative to it; you cannot reach outside it.`,
    '',
    'Tools:',
    ...tools.map((tool) => `- ${tool.name}: ${tool.description}`),
    '',
    'How you work:',
    '- Read a file before you edit it; edit_file needs the exact text to replace.',
    '- Prefer small, checked steps: run the tests or the program after a change.',
    '- Your context is compacted as it grows. Old tool results become placeholders such as',
    '  "[Previous: used read_file(src/app.ts) → … recall r17]"; call recall with that id when you need one again.',
    '- When you finish a phase of the work, you may call compact with a focus on what comes next.',
    '- When the task is done, answer with a short summary of what you changed and how you checked it.',
  ].join('\n');
}

/**
 * The `<identity>` reminder the compactor injects after a hard compaction, so the agent still knows
 * who it is, where it works and what it may do once its history is a summary.
 *
 * @example
 * const compactor = createCompactor({ identity: agentIdentity({ workspace, tools: agentToolDefinitions }) });
 */
export function agentIdentity({ workspace, tools }: AgentPromptOptions): string {
  return [
    `You are agent-compact, a coding agent working in ${workspace} (all tool paths are relative to it).`,
    `Your tools: ${tools.map((tool) => tool.name).join(', ')}.`,
    'Earlier tool results were archived during compaction; call recall with an id from the summary or a placeholder to see one again.',
    'Continue the task from the summary; do not redo finished work.',
  ].join('\n');
}
