/**
 * A shell result as an agent's harness wraps it, read apart from the wrapping: what the command
 * printed, its exit code, and (Codex's unified exec) the session of a command still running. One
 * reader per harness; the ledger asks them in turn.
 */
import { readCodexExecOutput, type ShellOutput } from './codex-exec-output.js';
import { readGeminiShellOutput } from './gemini-shell-output.js';

export type { ShellOutput } from './codex-exec-output.js';

/** The shell result `text` holds in Codex's or Gemini CLI's wrapping, or undefined for other text. */
export function readShellOutput(text: string): ShellOutput | undefined {
  return readCodexExecOutput(text) ?? readGeminiShellOutput(text);
}
