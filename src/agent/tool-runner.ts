import type { ArchiveStore, ToolResultBlock, ToolUseBlock } from 'agent-compact';
import { CompactError } from 'agent-compact';
import { handleRecall, parseCompactInput } from 'agent-compact/recall';
import { bashTool } from './bash-tool.js';
import { editFileTool, readFileTool, writeFileTool } from './file-tools.js';
import type { AgentToolName } from './tool-definitions.js';
import type { ToolOutcome } from './tool-outcome.js';

/** Whether `bash` commands run, and who decides. */
export type BashApproval =
  /** Run every command (`--yes`). */
  | { mode: 'allow' }
  /** Ask before each command; `ask` resolves true to run it. */
  | { mode: 'ask'; ask: (command: string, signal?: AbortSignal) => Promise<boolean> }
  /** Refuse every command with this reason (e.g. no terminal to ask on and no `--yes`). */
  | { mode: 'refuse'; reason: string };

/** Options of {@link createToolRunner}. */
export interface ToolRunnerOptions {
  /** The workspace root; file tools are confined to it and `bash` runs in it. */
  workspace: string;
  /** The compactor's archive, for `recall`. */
  archive: ArchiveStore;
  /** The session's id in the archive. */
  sessionId: string;
  /** Whether `bash` runs. @default { mode: 'allow' } */
  bashApproval?: BashApproval;
  /** `bash` timeout in milliseconds. @default 120000 */
  bashTimeoutMs?: number;
  /** Output cap of `bash` in bytes. @default 30000 */
  maxOutputBytes?: number;
  /** Strings (API keys) replaced by `[redacted]` in every tool result. @default [] */
  secrets?: readonly string[];
}

/** What running one tool call produced. */
export interface ToolRun {
  /** The answer to the call. */
  result: ToolResultBlock;
  /** Set when the model called `compact`: the next `maybeCompact` is forced to hard with this focus. */
  compactRequest?: { focus?: string };
}

/** Runs the agent's tools. */
export interface ToolRunner {
  run(toolUse: ToolUseBlock, options?: { signal?: AbortSignal }): Promise<ToolRun>;
}

/**
 * Runs tool calls of the reference agent's tools and turns each into a `tool_result` block.
 * Failures (unknown tool, bad input, refused path, non-zero exit) become `is_error` results the
 * model can read; only programming errors throw.
 *
 * @example
 * const tools = createToolRunner({ workspace, archive: compactor.archive, sessionId: compactor.sessionId });
 * const { result } = await tools.run(toolUseBlock, { signal });
 */
export function createToolRunner({
  workspace,
  archive,
  sessionId,
  bashApproval = { mode: 'allow' },
  bashTimeoutMs = 120_000,
  maxOutputBytes = 30_000,
  secrets = [],
}: ToolRunnerOptions): ToolRunner {
  const usableSecrets = secrets.filter((secret) => secret.length >= 8);

  async function outcomeOf(
    toolUse: ToolUseBlock,
    signal: AbortSignal | undefined,
  ): Promise<ToolRun | ToolOutcome> {
    const name = toolUse.name as AgentToolName;
    switch (name) {
      case 'bash': {
        const command = (toolUse.input as { command?: unknown } | null)?.command;
        const approved = await approveBash(bashApproval, typeof command === 'string' ? command : '', signal);
        if (approved !== true) return { content: `bash: ${approved}`, isError: true };
        return await bashTool(toolUse.input, { workspace, timeoutMs: bashTimeoutMs, maxOutputBytes, signal });
      }
      case 'read_file':
        return await readFileTool(toolUse.input, { workspace });
      case 'write_file':
        return await writeFileTool(toolUse.input, { workspace });
      case 'edit_file':
        return await editFileTool(toolUse.input, { workspace });
      case 'recall':
        return await recallOutcome(archive, sessionId, toolUse.input);
      case 'compact': {
        return {
          result: resultBlock(toolUse.id, {
            content: 'Compaction requested: the context will be summarized before your next step.',
            isError: false,
          }),
          compactRequest: parseCompactInput(toolUse.input),
        };
      }
      default: {
        const unknownName: never = name;
        return {
          content: `unknown tool "${String(unknownName)}"; the tools are bash, read_file, write_file, edit_file, compact, recall`,
          isError: true,
        };
      }
    }
  }

  return {
    async run(toolUse, { signal } = {}) {
      const outcome = await outcomeOf(toolUse, signal);
      const run: ToolRun = 'result' in outcome ? outcome : { result: resultBlock(toolUse.id, outcome) };
      run.result = redact(run.result, usableSecrets);
      return run;
    },
  };
}

async function approveBash(
  approval: BashApproval,
  command: string,
  signal: AbortSignal | undefined,
): Promise<true | string> {
  switch (approval.mode) {
    case 'allow':
      return true;
    case 'refuse':
      return approval.reason;
    case 'ask':
      return (await approval.ask(command, signal)) ? true : 'the user declined to run this command';
    default: {
      const unreachable: never = approval;
      throw new Error(`unknown bash approval ${JSON.stringify(unreachable)}`);
    }
  }
}

async function recallOutcome(archive: ArchiveStore, sessionId: string, input: unknown): Promise<ToolOutcome> {
  try {
    return { content: await handleRecall({ archive, sessionId }, input), isError: false };
  } catch (error) {
    if (!CompactError.isInstance(error) || error.code === 'ARCHIVE_FAILED') throw error;
    return { content: `recall: ${error.message}`, isError: true };
  }
}

function resultBlock(toolUseId: string, outcome: ToolOutcome): ToolResultBlock {
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content: outcome.content };
  if (outcome.isError) block.is_error = true;
  return block;
}

function redact(block: ToolResultBlock, secrets: readonly string[]): ToolResultBlock {
  if (secrets.length === 0) return block;
  const clean = (text: string) =>
    secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
  const content = block.content;
  if (typeof content === 'string') return { ...block, content: clean(content) };
  if (content === undefined) return block;
  return {
    ...block,
    content: content.map((part) =>
      part.type === 'text' && typeof part.text === 'string' ? { ...part, text: clean(part.text) } : part,
    ),
  };
}
