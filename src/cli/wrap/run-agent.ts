/** Runs the agent with the terminal attached, passing signals to it and its exit code back. */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** Signals the wrapper passes on instead of dying of them. */
const PASSED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Spawns `command args` with stdio inherited and resolves with its exit code; death by a signal
 * is `128 + n`, as a shell reports it. A command that cannot start resolves 127 with `onError` told.
 */
export function runAgent(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string,
  onError: (message: string) => void,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env, cwd });
    const pass = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const handlers = PASSED_SIGNALS.map((signal) => [signal, pass(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = (code: number) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolve(code);
    };
    child.once('error', (error) => {
      onError(`cannot start ${command}: ${error.message}`);
      done(127);
    });
    child.once('exit', (code, signal) => {
      done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
