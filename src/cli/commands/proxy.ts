/**
 * `agent-compact proxy --upstream URL [options]`, the options those of {@link PROXY_OPTIONS_HELP}.
 *
 * Runs the compaction proxy until SIGINT or SIGTERM. The first stdout line is `listening on URL`.
 */
import { type CliCommand, UsageError } from '../cli-io.js';
import { parseCommandArgs } from '../command-args.js';
import { DEFAULT_PORT, PROXY_ARG_OPTIONS, PROXY_OPTIONS_HELP, startProxyFromArgs } from './proxy-setup.js';

const help = `Usage: agent-compact proxy --upstream URL [options]

Compacts the conversation of every request an agent sends through it (POST /v1/messages,
/v1/chat/completions, /v1/responses, Gemini's …/models/MODEL:generateContent and
:streamGenerateContent) and forwards everything else untouched. Point the agent's base URL at it: ANTHROPIC_BASE_URL=http://127.0.0.1:${DEFAULT_PORT} claude

Options:
${PROXY_OPTIONS_HELP}  -h, --help                 show this help

The first line on stdout is "listening on http://HOST:PORT"; the first on stderr is "dashboard
ADDRESS", with the token in it when the proxy made one up; then one line per request goes to
stderr. Totals: GET /agent-compact/stats (with the token).

Exit codes: 0 stopped (Ctrl-C), 2 bad arguments or the proxy could not start.
`;

/** The `proxy` command. */
export const proxyCommand: CliCommand = async (args, io) => {
  const { values } = parseCommandArgs(args, { ...PROXY_ARG_OPTIONS, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  if (
    values.upstream === undefined &&
    (values['anthropic-upstream'] === undefined || values['openai-upstream'] === undefined)
  ) {
    throw new UsageError('--upstream URL is required (or both --anthropic-upstream and --openai-upstream)');
  }
  const running = await startProxyFromArgs(values, io, { defaultPort: DEFAULT_PORT, log: true });
  // Listen for the signals before saying "listening on": a script may send one the moment it reads that line.
  const stopped = stopSignal();
  io.stdout(`listening on ${running.proxy.url}\n`);
  io.stderr(`dashboard ${running.dashboardUrl}\n`);
  if (running.storeDescription) io.stderr(`store ${running.storeDescription}\n`);
  await stopped;
  await running.stop();
  return 0;
};

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): Promise<void> {
  return new Promise((resolvePromise) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolvePromise();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
