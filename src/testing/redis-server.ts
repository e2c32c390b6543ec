import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a starting `redis-server` may take to say it accepts connections. */
const START_TIMEOUT_MS = 10_000;
/** How long a stopping `redis-server` may take to flush and exit before it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** Fresh ports to try when another process took the free port between probing and binding. */
const PORT_ATTEMPTS = 5;

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** The server binary. @default 'redis-server' (from `PATH`) */
  binary?: string;
  /** The port; a free one when absent. Pass a stopped server's port to restart it in place. */
  port?: number;
  /** The data folder; a fresh temp folder (removed on stop) when absent. */
  directory?: string;
  /** A password the server requires (`requirepass`). */
  password?: string;
  /** More `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  extraArgs?: readonly string[];
}

/** A running `redis-server` owned by the caller. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (with the password when one was set). */
  readonly url: string;
  readonly port: number;
  /** The data folder (append-only file on, so a restart in the same folder keeps the data). */
  readonly directory: string;
  readonly pid: number;
  /**
   * Stops the server (SIGTERM: it flushes its append-only file first) and waits for it to exit.
   * Removes the data folder when the server made it, unless `keepData` is set.
   */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * Starts a real `redis-server` bound to 127.0.0.1 on a free port with its own temp data folder,
 * for tests and benchmarks. It logs to nothing and saves no snapshots; the append-only file keeps
 * the data across a restart in the same folder.
 *
 * @example
 * const server = await startRedisServer();
 * const archive = createRedisArchiveStore({ url: server.url });
 * // …
 * await archive.close();
 * await server.stop();
 */
export async function startRedisServer({
  binary = 'redis-server',
  port,
  directory,
  password,
  extraArgs = [],
}: RedisServerOptions = {}): Promise<RedisServer> {
  const ownDirectory = directory === undefined;
  const folder = directory ?? (await mkdtemp(join(tmpdir(), 'agent-compact-redis-')));
  let lastError: unknown;
  for (let attempt = 0; attempt < (port === undefined ? PORT_ATTEMPTS : 1); attempt++) {
    const chosen = port ?? (await freePort());
    try {
      const child = await launch(binary, chosen, folder, password, extraArgs);
      return serverHandle(child, chosen, folder, ownDirectory, password);
    } catch (error) {
      lastError = error;
      // Only a port taken between probing and binding is worth another try.
      if (!String((error as Error).message).includes('in use')) break;
    }
  }
  if (ownDirectory) await rm(folder, { recursive: true, force: true });
  throw lastError;
}

function serverHandle(
  child: ChildProcess,
  port: number,
  directory: string,
  ownDirectory: boolean,
  password: string | undefined,
): RedisServer {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    url: `redis://${password === undefined ? '' : `:${encodeURIComponent(password)}@`}127.0.0.1:${port}`,
    port,
    directory,
    pid: child.pid ?? -1,
    async stop({ keepData = false } = {}) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      if (ownDirectory && !keepData) await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Spawns the server and resolves once it accepts connections, or rejects with its own words. */
function launch(
  binary: string,
  port: number,
  directory: string,
  password: string | undefined,
  extraArgs: readonly string[],
): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    directory,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--daemonize',
    'no',
    '--logfile',
    '',
    ...(password === undefined ? [] : ['--requirepass', password]),
    ...extraArgs,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`redis-server on port ${port} did not start: ${reason}`));
    };
    const timer = setTimeout(
      () => fail(`no "Ready" within ${START_TIMEOUT_MS} ms\n${output}`),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/Ready to accept connections/.test(output)) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        // Keep draining so a chatty server never blocks on a full pipe.
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      } else if (/Address already in use/.test(output)) fail('the port is in use');
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT'
          ? `${binary} not found (ENOENT): install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis)`
          : error.message,
      ),
    );
    child.once('exit', (code) => fail(`exited with ${code}\n${output}`));
  });
}

/** A port the OS says is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
