/**
 * Codex CLI's shell tool outputs, read apart from their wrapping so the ledger quotes what the
 * command printed, not the harness's header (which repeats the command). Three shapes:
 *
 * - `exec_command` / `write_stdin` (unified exec): `Command: /bin/zsh -lc '…'`, `Chunk ID: …`,
 *   `Wall time: …`, `Process exited with code N` or `Process running with session ID N`,
 *   `Original token count: …`, then `Output:` and the output (when cut, `Total output lines: N`
 *   first, after a `Warning: truncated output …` line in newer versions);
 * - `shell` (freeform): `Exit code: N`, `Wall time: …` (`Total output lines: N` when cut), then
 *   `Output:` and the output;
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
  /** True when the harness cut the output (Codex: `Total output lines: N` and `…N tokens truncated…`). */
  truncated?: boolean;
}

const unifiedHeader = /^Command: [^\n]*\n(?:(?!Output:\n)[^\n]*\n){0,8}?Output:\n/;
const freeformHeader = /^Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?(Total output lines: \d+\n)?Output:\n/;
const exitedLine = /^Process exited with code (-?\d+)$/m;
const runningLine = /^Process running with session ID (\S+)$/m;
const truncatedLine = /^(?:Warning: truncated output[^\n]*\n)?Total output lines: \d+\n\n?/;

/** The output and exit status of a Codex shell result, or undefined when `text` has none of its shapes. */
export function readCodexExecOutput(text: string): ShellOutput | undefined {
  const unified = unifiedHeader.exec(text);
  if (unified) {
    const header = unified[0];
    const exited = exitedLine.exec(header)?.[1];
    const running = runningLine.exec(header)?.[1];
    const body = text.slice(header.length);
    const output = body.replace(truncatedLine, '');
    return {
      output,
      ...(exited === undefined ? {} : { exitCode: Number(exited) }),
      ...(running === undefined ? {} : { sessionId: running }),
      ...(output.length === body.length ? {} : { truncated: true }),
    };
  }
  const freeform = freeformHeader.exec(text);
  if (freeform)
    return {
      output: text.slice(freeform[0].length),
      exitCode: Number(freeform[1]),
      ...(freeform[2] === undefined ? {} : { truncated: true }),
    };
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
