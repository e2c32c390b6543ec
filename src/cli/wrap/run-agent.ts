/** Runs the agent with the terminal attached, passing signals to it and its exit code back. */
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Signals the wrapper passes on instead of dying of them. */
const PASSED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How the agent's signals reach it. */
export interface RunAgentOptions {
  /**
   * The agent shares a terminal with the wrapper: Ctrl-C already sends SIGINT to both (the whole
   * foreground process group), so passing it on would make one Ctrl-C two. SIGTERM and SIGHUP, sent
   * to the wrapper alone, are passed on in any case.
   * @default whether stdin is a terminal
   */
  terminal?: boolean;
}

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
  { terminal = Boolean(process.stdin.isTTY) }: RunAgentOptions = {},
): Promise<number> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: 'inherit', env, cwd });
    const pass = (signal: NodeJS.Signals) => () => {
      // The wrapper still listens, so it outlives the Ctrl-C and reports the agent's exit.
      if (signal === 'SIGINT' && terminal) return;
      child.kill(signal);
    };
    const handlers = PASSED_SIGNALS.map((signal) => [signal, pass(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = (code: number) => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      resolvePromise(code);
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

/**
 * Where `command` would run from, as a shell finds it: a name with a slash as it is (from `cwd`),
 * a bare name in `PATH`; `undefined` when there is no such executable file.
 */
export function findCommand(command: string, env: Record<string, string | undefined>, cwd: string) {
  if (command.includes('/') || command.includes('\\')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutable(path) ? path : undefined;
  }
  const directories = (env.PATH ?? '').split(delimiter).filter((directory) => directory !== '');
  // Windows finds `claude` as `claude.cmd`.
  const extensions =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  return directories
    .flatMap((directory) => extensions.map((extension) => join(resolve(cwd, directory), command + extension)))
    .find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
