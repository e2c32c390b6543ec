import { keepHeapNearLive } from './heap-growth.js';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** True when stderr is a terminal (progress bars only then). */
  isTTY: boolean;
  /** The clock progress displays read (milliseconds). @default Date.now */
  now?: () => number;
  /**
   * Called by the commands that run a server (`proxy`, `wrap`) before it starts: the bin keeps
   * V8's heap near what is live (`keepHeapNearLive`); tests, sharing their process, pass none.
   */
  runsServer?: () => void;
}

/** The process's own streams, environment and folder: what a bin gives `main`. */
export function processIO(): CliIO {
  handleOutputErrors(process.stdout, {
    stderr: (text) => process.stderr.write(text),
    exit: (code) => process.exit(code),
  });
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stderr.isTTY),
    runsServer: () => {
      keepHeapNearLive();
    },
  };
}

/** A failure the CLI reports as one line and an exit code, never a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A mistake on the command line (an unknown flag, a bad value, a missing argument): exit 2, and the
 * CLI prints the command's usage line under the error.
 */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/** One subcommand: parses its own arguments, returns the exit code. */
export type CliCommand = (args: string[], io: CliIO) => Promise<number>;

/**
 * A failed write to stdout as one line and exit 2 (a full disk, an I/O error), where Node would
 * throw an unhandled `'error'` with a stack trace; a reader that went away (`| head`: EPIPE) only
 * stops the output, and the command ends with its own exit code.
 */
export function handleOutputErrors(
  stdout: Pick<NodeJS.EventEmitter, 'on'>,
  { stderr, exit }: { stderr: (text: string) => void; exit: (code: number) => void },
): void {
  let reported = false;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || reported) return;
    reported = true;
    stderr(`agent-compact: cannot write the output: ${error.message.split('\n')[0]}\n`);
    exit(2);
  });
}
