// Child processes the proxy suites start (the proxy as users run it, the bare hop) and the CPU they use.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** This build's `agent-compact` command. */
const thisBuild = fileURLToPath(new URL('../cli/bin.js', import.meta.url));

/** A child process that prints `listening on URL` first. */
export async function startListening(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => {
      const match = /^listening on (\S+)/.exec(chunk.toString('utf8'));
      if (match?.[1]) resolve(match[1]);
      else reject(new Error(`unexpected first line: ${chunk.toString('utf8')}`));
    });
    child.once('exit', (code) => reject(new Error(`proxy exited with ${code}`)));
  });
  return { url, child };
}

/** `agent-compact proxy` (this build's, or the command at `bin`) at thresholds no bench request reaches. */
export function startProxyProcess(
  upstream: string,
  { extra = [], bin = thisBuild }: { extra?: string[]; bin?: string } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const thresholds = ['--mid', '150000', '--hard', '190000'];
  return startListening([bin, 'proxy', '--upstream', upstream, '--port', '0', ...thresholds, ...extra]);
}

/** The bare pass-through hop in front of `upstream` (`bare-hop.ts`): the floor of any proxy. */
export function startBareHop(upstream: string): Promise<{ url: string; child: ChildProcess }> {
  return startListening([fileURLToPath(new URL('./bare-hop.js', import.meta.url)), upstream]);
}

/**
 * Milliseconds of CPU a process used so far, all its threads, from Linux's /proc; undefined
 * elsewhere. `schedstat` counts nanoseconds; `stat` (the fallback) counts 10 ms ticks, too coarse
 * to tell a few percent apart over a few hundred requests.
 */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let nanoseconds = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    if (Number.isFinite(nanoseconds)) return nanoseconds / 1e6;
  } catch {
    // No schedstat (kernel without CONFIG_SCHED_INFO): the ticks below.
  }
  try {
    // Fields 14 and 15 of /proc/PID/stat (after the command in parentheses): clock ticks of 10 ms.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
