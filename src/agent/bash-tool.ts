import { spawn } from 'node:child_process';
import type { ToolOutcome } from './tool-outcome.js';

/** Options of {@link bashTool}. */
export interface BashToolOptions {
  /** The working directory of the command (the workspace). */
  workspace: string;
  /**
   * The command is killed (with its whole process group) after this many milliseconds.
   * @default 120000
   */
  timeoutMs?: number;
  /**
   * Output beyond this many bytes is cut: the first and last halves are kept and the model is told
   * how much was cut.
   * @default 30000
   */
  maxOutputBytes?: number;
  /** Kills the command when aborted (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * The child's environment.
   * @default process.env without variables whose names look like secrets (…KEY, …TOKEN, …SECRET)
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * The `bash {command}` tool: runs the command with `bash -c` in the workspace, stdout and stderr
 * interleaved, and reports the exit code. A timeout, an abort or too much output never hangs the
 * agent: the process group is killed and long output keeps its head and tail.
 *
 * @example
 * const outcome = await bashTool({ command: 'npm test' }, { workspace: process.cwd(), timeoutMs: 60_000 });
 */
export async function bashTool(
  input: unknown,
  {
    workspace,
    timeoutMs = 120_000,
    maxOutputBytes = 30_000,
    signal,
    env = environmentWithoutSecrets(),
  }: BashToolOptions,
): Promise<ToolOutcome> {
  const command = (input as { command?: unknown } | null)?.command;
  if (typeof command !== 'string' || command.trim() === '') {
    return { content: 'bash: "command" must be a non-empty string', isError: true };
  }
  if (signal?.aborted) return { content: 'bash: interrupted by the user before it started', isError: true };

  const output = createOutputCapture(maxOutputBytes);
  return await new Promise<ToolOutcome>((resolve) => {
    // detached: the child leads its own process group, so a kill reaches everything it started.
    const child = spawn('bash', ['-c', command], {
      cwd: workspace,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stopReason: 'timeout' | 'abort' | undefined;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      stopReason = 'timeout';
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      stopReason ??= 'abort';
      killGroup();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ content: `bash: cannot start: ${error.message}`, isError: true });
    });
    // Children that outlive bash (e.g. `sleep 100 &`) would hold the pipes open; end them too.
    child.on('exit', killGroup);
    child.on('close', (exitCode, killSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcomeOf(output.text(), { stopReason, timeoutMs, exitCode, killSignal }));
    });
  });
}

/** What the model reads of a finished command: its output and how it ended. */
function outcomeOf(
  text: string,
  {
    stopReason,
    timeoutMs,
    exitCode,
    killSignal,
  }: {
    stopReason: 'timeout' | 'abort' | undefined;
    timeoutMs: number;
    exitCode: number | null;
    killSignal: NodeJS.Signals | null;
  },
): ToolOutcome {
  const body = text === '' ? '(no output)' : text;
  switch (stopReason) {
    case 'timeout':
      return { content: `${body}\n[timed out after ${timeoutMs} ms; the command was killed]`, isError: true };
    case 'abort':
      return { content: `${body}\n[interrupted by the user; the command was killed]`, isError: true };
    case undefined: {
      const status = exitCode === null ? `killed by ${killSignal}` : `exit code ${exitCode}`;
      return { content: `${body}\n[${status}]`, isError: exitCode !== 0 };
    }
    default: {
      const unreachable: never = stopReason;
      throw new Error(`unknown stop reason ${String(unreachable)}`);
    }
  }
}

/** Keeps the first and last `maxBytes / 2` bytes of a stream and counts what falls between. */
function createOutputCapture(maxBytes: number) {
  const half = Math.max(1, Math.floor(maxBytes / 2));
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer = Buffer.alloc(0);
  let totalBytes = 0;
  return {
    add(chunk: Buffer) {
      totalBytes += chunk.length;
      let rest = chunk;
      if (headBytes < half) {
        const taken = rest.subarray(0, half - headBytes);
        head.push(taken);
        headBytes += taken.length;
        rest = rest.subarray(taken.length);
      }
      if (rest.length > 0) {
        const joined = Buffer.concat([tail, rest]);
        tail = joined.subarray(Math.max(0, joined.length - half));
      }
    },
    text(): string {
      const headText = Buffer.concat(head).toString('utf8');
      const cutBytes = totalBytes - headBytes - tail.length;
      if (cutBytes <= 0) return headText + tail.toString('utf8');
      return `${headText}\n[... ${cutBytes} bytes of output cut (${totalBytes} in all); kept the first ${headBytes} and the last ${tail.length} bytes ...]\n${tail.toString('utf8')}`;
    },
  };
}

const secretNamePattern = /(KEY|TOKEN|SECRET|PASSWORD)$/i;

/** `process.env` without variables that look like credentials, so `env` in bash cannot leak them. */
export function environmentWithoutSecrets(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(source).filter(([name]) => !secretNamePattern.test(name)));
}
