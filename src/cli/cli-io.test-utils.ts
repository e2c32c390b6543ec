import type { CliIO } from './cli-io.js';

/** A CliIO that records what a command prints. */
export function recordingIO(
  cwd: string,
  env: Record<string, string | undefined> = {},
  { isTTY = false } = {},
) {
  const output = { stdout: '', stderr: '' };
  const io: CliIO = {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
    env,
    cwd,
    isTTY,
  };
  return { output, io };
}
