/**
 * `agent-compact wrap -- claude -p …` and `agent-compact wrap -- codex exec …` against the scripted
 * server: the built CLI starts its own proxy, so this checks the exit code, the savings line and
 * that the agent's requests reached the server through it.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedModelServerOptions, startScriptedModelServer } from '../testing/index.js';
import type { E2ECheck } from './e2e-checks.js';

const AGENT_TIMEOUT_MS = 240_000;
const binPath = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
/** The savings line; group 3 is its fallbacks (`, 3 compactions rejected: …`), when there are any. */
const savingsPattern =
  /agent-compact: (\d+) requests?, [\d,]+ tokens sent → [\d,]+ forwarded, ([\d,]+) compactions?(, .*?)?, ~\$\d+\.\d\d saved, dashboard http:\/\/127\.0\.0\.1:\d+\/agent-compact\//;

/** What the wrapped run needs: the agent command and arguments, its environment and the script. */
export interface WrapRun {
  agent: string[];
  args: string[];
  env: Record<string, string>;
  script: ScriptedModelServerOptions['script'];
  thresholds: { mid: number; hard: number };
  /** Writes agent config into the scratch workspace before the run. */
  prepare?: (workspace: string) => Promise<Record<string, string>>;
}

/** Runs the agent under `agent-compact wrap` and returns the checks. */
export async function wrappedRun(run: WrapRun): Promise<E2ECheck[]> {
  const server = await startScriptedModelServer({ script: run.script });
  const workspace = await mkdtemp(join(tmpdir(), 'e2e-wrap-'));
  try {
    const extraEnv = (await run.prepare?.(workspace)) ?? {};
    const wrapArgs = [
      binPath,
      'wrap',
      '--upstream',
      server.url,
      '--mid',
      String(run.thresholds.mid),
      '--hard',
      String(run.thresholds.hard),
      '--',
      ...run.agent,
      ...run.args,
    ];
    const { code, output } = await runCaptured(wrapArgs, workspace, { ...run.env, ...extraEnv });
    const savings = savingsPattern.exec(output);
    const requests = Number(savings?.[1] ?? 0);
    const compactions = Number((savings?.[2] ?? '0').replaceAll(',', ''));
    if (code !== 0 || !savings) console.log(output.slice(-3000));
    return [
      { name: 'wrap exits 0', passed: code === 0, detail: `exit code ${code}` },
      { name: 'savings line printed', passed: savings !== null, detail: savings?.[0] ?? 'missing' },
      {
        name: 'requests went through the proxy',
        passed: requests > 0 && server.requests.length > 0,
        detail: `${requests} through the proxy, ${server.requests.length} at the server`,
      },
      { name: 'compaction fired', passed: compactions > 0, detail: `${compactions} compactions` },
      {
        name: 'no compaction fell back',
        passed: savings !== null && savings[3] === undefined,
        detail: savings?.[3]?.slice(2) ?? 'none',
      },
    ];
  } finally {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

function runCaptured(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), AGENT_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** A Codex home with only the model set: `wrap` adds the provider on the command line. */
export async function codexHome(workspace: string): Promise<Record<string, string>> {
  const home = join(workspace, '.codex-home');
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.toml'), 'model = "gpt-e2e"\n');
  return { CODEX_HOME: home };
}
