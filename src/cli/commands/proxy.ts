/**
 * `agent-compact proxy --upstream URL [--host H] [--port N] [--mid N --hard N | --window N]
 * [--summarizer SPEC] [--archive DIR | --store redis://…] [--anthropic-upstream URL] [--openai-upstream URL] [--gemini-upstream URL]
 * [--json-log FILE] [--recall] [--background] [--tokenizer T] [--upstream-timeout SECONDS] [--max-body SIZE]`
 *
 * Runs the compaction proxy until SIGINT or SIGTERM. The first stdout line is `listening on URL`.
 */
import { type CliCommand, CliError } from '../cli-io.js';
import { parseCommandArgs } from '../command-args.js';
import { PROXY_ARG_OPTIONS, startProxyFromArgs } from './proxy-setup.js';

/** The port when `--port` is not given. */
const DEFAULT_PORT = 8787;

const help = `Usage: agent-compact proxy --upstream URL [options]

Compacts the conversation of every request an agent sends through it (POST /v1/messages,
/v1/chat/completions, /v1/responses) and forwards everything else untouched. Point the agent's
base URL at it: ANTHROPIC_BASE_URL=http://127.0.0.1:${DEFAULT_PORT} claude

Options:
  --upstream URL             where requests go, e.g. https://api.anthropic.com
  --anthropic-upstream URL   Anthropic traffic goes here instead
  --openai-upstream URL      OpenAI traffic (chat, responses, other paths) goes here instead
  --host H                   interface to listen on (default 127.0.0.1); any other address
                             needs --token
  --token TOKEN              every /agent-compact/* route then asks for it (Authorization:
                             Bearer TOKEN, or ?token=TOKEN); default AGENT_COMPACT_TOKEN
  --gemini-upstream URL      Gemini traffic (/v1beta/models/…) goes here instead,
                             e.g. https://generativelanguage.googleapis.com
  --port N                   port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --mid N                    mid threshold in tokens (default 50000, or 60% of --window)
  --hard N                   hard threshold in tokens (default 80000, or 85% of --window)
  --window N                 the model's context window; thresholds become fractions of it
  --summarizer SPEC          same (default: the client's own model and key), extractive,
                             anthropic:MODEL, openai:MODEL, openai-responses:MODEL or gemini:MODEL
                             (keys from ANTHROPIC_API_KEY / OPENAI_API_KEY / GEMINI_API_KEY),
                             through the matching upstream
  --archive DIR              keep what leaves the context in DIR, one file per conversation
  --store redis://HOST:PORT  keep conversations, archives and compactor state in Redis, shared by
                             every replica given the same URL (Redis down: requests go on uncompacted)
  --recall                   give the model a recall tool the proxy answers itself (placeholders
                             then name archive ids; without it they name none)
  --background               write hard summaries in the background: requests keep going
                             upstream while the summary is written, a later one carries it
  --notify                   after a hard compaction, put a one-line note in front of the
                             streamed answer (off by default)
  --otel                     trace requests and compactions with OpenTelemetry (GenAI conventions)
                             through @opentelemetry/api; on by itself when an SDK registered a
                             tracer provider
  --json-log FILE            append one JSON line per request to FILE (layer, tokensIn,
                             tokensOut, session: the figures of the x-agent-compact-* headers)
  --upstream-timeout S       give up on an exchange after S seconds (default 600): the client gets
                             a 504 and the conversation's next request goes ahead
  --max-body SIZE            refuse request bodies over SIZE bytes with a 413 in the provider's
                             error shape, without reading the rest (default 32MiB; takes bytes or
                             KB, MB, GB, KiB, MiB, GiB)
  --tokenizer T              heuristic (default; provider usage anchors the count), o200k or cl100k
  -h, --help                 show this help

The first line on stdout is "listening on http://HOST:PORT"; one line per request goes to stderr.
Totals: GET /agent-compact/stats.
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
    throw new CliError('--upstream URL is required (or both --anthropic-upstream and --openai-upstream)', 2);
  }
  const running = await startProxyFromArgs(values, io, { defaultPort: DEFAULT_PORT, log: true });
  io.stdout(`listening on ${running.proxy.url}\n`);
  if (running.storeDescription) io.stderr(`store ${running.storeDescription}\n`);
  await stopSignal();
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
