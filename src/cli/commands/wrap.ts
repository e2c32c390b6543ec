/**
 * `agent-compact wrap [proxy options] -- AGENT [ARGS…]`, and the short forms `agent-compact claude …`,
 * `agent-compact codex …`, `agent-compact gemini …`: the proxy on a free loopback port, the agent
 * pointed at it with its terminal attached, its exit code passed back, and one line of savings.
 */

import { type CliCommand, CliError } from '../cli-io.js';
import { parseCommandArgs } from '../command-args.js';
import { agentLaunch } from '../wrap/agent-launch.js';
import { findCommand, runAgent } from '../wrap/run-agent.js';
import { bypassWarning, fallbackWarning, savingsLine } from '../wrap/savings-line.js';
import { PROXY_ARG_OPTIONS, PROXY_OPTIONS_HELP, startProxyFromArgs } from './proxy-setup.js';

const help = `Usage: agent-compact wrap [proxy options] -- AGENT [ARGS…]
       agent-compact claude [ARGS…]    (also: codex, gemini)

Starts the compaction proxy on a free loopback port, prints the dashboard's address (with a
fresh token in it), runs AGENT through it with the terminal attached, and prints one line when it
exits: requests, tokens sent vs forwarded, compactions, estimated cost saved and the dashboard
address. The agent's exit code is wrap's; 127 when AGENT is not found (nothing is started).

How the agent is pointed at the proxy:
  claude     ANTHROPIC_BASE_URL
  codex      -c model_providers.agent_compact.… -c model_provider="agent_compact" (its own auth:
             OPENAI_API_KEY when set, else its login)
  gemini     GOOGLE_GEMINI_BASE_URL
  opencode   ANTHROPIC_BASE_URL and OPENAI_BASE_URL, each ending in /v1 (its AI SDK providers')
  crush      OPENAI_BASE_URL (also aider)
  other      both ANTHROPIC_BASE_URL and OPENAI_BASE_URL, with a note

Proxy options, the same as agent-compact proxy's; --upstream defaults to the base URL the
agent's environment already names (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL:
a gateway, a local model server), else the provider's own API; --port to a free one:
${PROXY_OPTIONS_HELP}  -h, --help                 show this help

Exit codes: the agent's own, 127 the agent is not on PATH, 2 bad arguments or the proxy could not start.
`;

/** The `wrap` command. */
export const wrapCommand: CliCommand = async (args, io) => {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const [agent, ...agentArgs] = split === -1 ? [] : args.slice(split + 1);
  const { values } = parseCommandArgs(own, { ...PROXY_ARG_OPTIONS, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  if (agent === undefined || agent === '') {
    throw new CliError('missing the agent: agent-compact wrap [proxy options] -- AGENT [ARGS…]', 2);
  }
  // An agent that is not there starts nothing: no proxy, no savings line.
  if (findCommand(agent, io.env, io.cwd) === undefined) {
    io.stderr(`agent-compact: ${agent}: not found${agent.includes('/') ? '' : ' on PATH'}\n`);
    return 127;
  }
  // The upstreams depend on the agent, the launch on the proxy's address: decide the kind first.
  const planned = agentLaunch(agent, agentArgs, 'http://127.0.0.1', io.env);
  const running = await startProxyFromArgs(values, io, {
    defaultPort: 0,
    upstreams: planned.upstreams,
    log: false,
  });
  // Printed while the dashboard is there to open, with the token it asks for.
  io.stderr(`agent-compact: dashboard ${running.dashboardUrl}\n`);
  const launch = agentLaunch(agent, agentArgs, running.proxy.url, io.env);
  if (launch.note) io.stderr(`${launch.note}\n`);
  let started = true;
  let code: number;
  try {
    code = await runAgent(launch.command, launch.args, agentEnv(io.env, launch.env), io.cwd, (message) => {
      started = false;
      io.stderr(`agent-compact wrap: ${message}\n`);
    });
  } finally {
    const stats = await running.proxy.stats();
    await running.stop();
    if (started) {
      io.stderr(`${savingsLine(stats, `${running.proxy.url}/agent-compact/`)}\n`);
      const warning = fallbackWarning(stats) ?? bypassWarning(stats, launch.kind, agentArgs);
      if (warning) io.stderr(`${warning}\n`);
    }
  }
  return code;
};

/** The agent's environment: wrap's own, its base URLs added, and no proxy token (the agent needs none). */
function agentEnv(
  env: Record<string, string | undefined>,
  added: Record<string, string>,
): Record<string, string | undefined> {
  const { AGENT_COMPACT_TOKEN: _token, ...rest } = env;
  return { ...rest, ...added };
}

/** `agent-compact claude ARGS…` is `agent-compact wrap -- claude ARGS…`. */
export function shortForm(agent: string): CliCommand {
  return (args, io) => wrapCommand(['--', agent, ...args], io);
}
