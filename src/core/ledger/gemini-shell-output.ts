/**
 * Gemini CLI's `run_shell_command` result (checked with 0.61): `Output: ` and what the command
 * printed (`(empty)` for nothing), then the lines it adds after it: `Error: …`, `Exit Code: N`
 * (when not 0), `Signal: …`, `Background PIDs: …`, `Process Group PGID: N`. Read apart, so the
 * ledger quotes what the command printed and a `cat` of a file is the file's text.
 */
import type { ShellOutput } from './codex-exec-output.js';

/** The lines the CLI adds after the output, at most one of each, in this order. */
const trailers = [
  /^Error: /,
  /^Exit Code: (-?\d+)$/,
  /^Signal: /,
  /^Background PIDs: /,
  /^Process Group PGID: \d+$/,
];
const OUTPUT = 'Output: ';

/** The output and exit code of a Gemini CLI shell result, or undefined when `text` is not one. */
export function readGeminiShellOutput(text: string): ShellOutput | undefined {
  if (!text.startsWith(OUTPUT)) return undefined;
  const lines = text.split('\n');
  let end = lines.length;
  let exitCode: number | undefined;
  let seen = 0;
  // From the last line back: each added line, in the order the CLI writes them.
  for (let trailer = trailers.length - 1; trailer >= 0 && end > 1; trailer--) {
    const match = trailers[trailer]!.exec(lines[end - 1]!);
    if (!match) continue;
    if (match[1] !== undefined) exitCode = Number(match[1]);
    end--;
    seen++;
  }
  // Without a line of its own after the output, the text may be anything that starts with `Output: `.
  if (seen === 0) return undefined;
  const output = lines.slice(0, end).join('\n').slice(OUTPUT.length);
  return { output: output === '(empty)' ? '' : output, ...(exitCode === undefined ? {} : { exitCode }) };
}
