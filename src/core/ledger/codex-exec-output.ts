/**
 * Codex CLI's shell tool outputs, read apart from their wrapping so the ledger quotes what the
 * command printed, not the harness's header (which repeats the command). Three shapes:
 *
 * - `exec_command` / `write_stdin` (unified exec): `Command: /bin/zsh -lc '…'`, `Chunk ID: …`,
 *   `Wall time: …`, `Process exited with code N` or `Process running with session ID N`,
 *   `Original token count: …`, then `Output:` and the output (maybe `Total output lines: N` first);
 * - `shell` (freeform): `Exit code: N`, `Wall time: …`, then `Output:` and the output;
 * - `shell` (JSON): `{"output": "…", "metadata": {"exit_code": N, …}}`;
 * - an `exec_command` result a Codex `exec` script printed whole: `{"exit_code": N, "output": "…", …}`.
 */

/** A shell result, its wrapping read (the shape every harness's reader gives, see `shell-output.ts`). */
export interface ShellOutput {
  /** What the command printed. */
  output: string;
  /** The exit code, when the process ended. */
  exitCode?: number;
  /** The unified exec session of a process still running (polled later by `write_stdin`). */
  sessionId?: string;
}

const unifiedHeader = /^Command: [^\n]*\n(?:(?!Output:\n)[^\n]*\n){0,8}?Output:\n/;
const freeformHeader = /^Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?Output:\n/;
const exitedLine = /^Process exited with code (-?\d+)$/m;
const runningLine = /^Process running with session ID (\S+)$/m;
const truncatedLine = /^Total output lines: \d+\n\n?/;

/** The output and exit status of a Codex shell result, or undefined when `text` has none of its shapes. */
export function readCodexExecOutput(text: string): ShellOutput | undefined {
  const unified = unifiedHeader.exec(text);
  if (unified) {
    const header = unified[0];
    const exited = exitedLine.exec(header)?.[1];
    const running = runningLine.exec(header)?.[1];
    return {
      output: text.slice(header.length).replace(truncatedLine, ''),
      ...(exited === undefined ? {} : { exitCode: Number(exited) }),
      ...(running === undefined ? {} : { sessionId: running }),
    };
  }
  const freeform = freeformHeader.exec(text);
  if (freeform) return { output: text.slice(freeform[0].length), exitCode: Number(freeform[1]) };
  return jsonOutput(text);
}

/** `shell`'s JSON, or an `exec_command` result an `exec` script printed whole (`text(result)`). */
function jsonOutput(text: string): ShellOutput | undefined {
  if (!text.startsWith('{"') || !text.includes('"output":')) return undefined;
  try {
    const value = JSON.parse(text) as {
      output?: unknown;
      exit_code?: unknown;
      metadata?: { exit_code?: unknown };
    };
    if (typeof value.output !== 'string') return undefined;
    const code = value.metadata?.exit_code ?? value.exit_code;
    return { output: value.output, ...(typeof code === 'number' ? { exitCode: code } : {}) };
  } catch {
    return undefined;
  }
}
