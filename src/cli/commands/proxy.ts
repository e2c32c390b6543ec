/**
 * `agent-compact proxy --upstream URL [--host H] [--port N] [--mid N --hard N | --window N]
 * [--summarizer SPEC] [--archive DIR | --store redis://…] [--anthropic-upstream URL] [--openai-upstream URL]
 * [--json-log FILE] [--recall] [--background] [--tokenizer T] [--upstream-timeout SECONDS]`
 *
 * Runs the compaction proxy until SIGINT or SIGTERM. The first stdout line is `listening on URL`.
 */
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { createFileArchiveStore } from '../../archive/index.js';
import type { SummaryModel } from '../../core/summary/summary-model.js';
import { type ProxyOptions, startProxy } from '../../proxy/index.js';
import { type CliCommand, CliError, type CliIO } from '../cli-io.js';
import {
  createCliCounter,
  parseCommandArgs,
  positiveIntegerOption,
  tokenizerOption,
} from '../command-args.js';
import { openStoreFromSpec } from '../store-from-spec.js';
import { createSummaryModelFromSpec } from '../summarizer-from-spec.js';

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
  --host H                   interface to listen on (default 127.0.0.1)
  --port N                   port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --mid N                    mid threshold in tokens (default 50000, or 60% of --window)
  --hard N                   hard threshold in tokens (default 80000, or 85% of --window)
  --window N                 the model's context window; thresholds become fractions of it
  --summarizer SPEC          same (default: the client's own model and key), extractive,
                             anthropic:MODEL, openai:MODEL or openai-responses:MODEL (keys from
                             ANTHROPIC_API_KEY / OPENAI_API_KEY), through the matching upstream
  --archive DIR              keep what leaves the context in DIR, one file per conversation
  --store redis://HOST:PORT  keep conversations, archives and compactor state in Redis, shared by
                             every replica given the same URL (Redis down: requests go on uncompacted)
  --recall                   give the model a recall tool the proxy answers itself (placeholders
                             then name archive ids; without it they name none)
  --background               write hard summaries in the background: requests keep going
                             upstream while the summary is written, a later one carries it
  --json-log FILE            append one JSON line per request to FILE
  --upstream-timeout S       give up on an exchange after S seconds (default 600): the client gets
                             a 504 and the conversation's next request goes ahead
  --tokenizer T              heuristic (default; provider usage anchors the count), o200k or cl100k
  -h, --help                 show this help

The first line on stdout is "listening on http://HOST:PORT"; one line per request goes to stderr.
Totals: GET /agent-compact/stats.
`;

/** The `proxy` command. */
export const proxyCommand: CliCommand = async (args, io) => {
  const { values } = parseCommandArgs(args, {
    upstream: { type: 'string' },
    'anthropic-upstream': { type: 'string' },
    'openai-upstream': { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    mid: { type: 'string' },
    hard: { type: 'string' },
    window: { type: 'string' },
    summarizer: { type: 'string' },
    archive: { type: 'string' },
    store: { type: 'string' },
    'json-log': { type: 'string' },
    recall: { type: 'boolean' },
    background: { type: 'boolean' },
    tokenizer: { type: 'string' },
    'upstream-timeout': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(help);
    return 0;
  }
  const upstream = values.upstream;
  if (
    upstream === undefined &&
    (values['anthropic-upstream'] === undefined || values['openai-upstream'] === undefined)
  ) {
    throw new CliError('--upstream URL is required (or both --anthropic-upstream and --openai-upstream)', 2);
  }
  const mid = positiveIntegerOption('mid', values.mid);
  const hard = positiveIntegerOption('hard', values.hard);
  const window = positiveIntegerOption('window', values.window);
  const upstreamTimeout = positiveIntegerOption('upstream-timeout', values['upstream-timeout']);
  const port = values.port === undefined ? DEFAULT_PORT : portOption(values.port);
  const anthropicUpstream = values['anthropic-upstream'] ?? upstream;
  const openaiUpstream = values['openai-upstream'] ?? upstream;
  const jsonLog =
    values['json-log'] === undefined
      ? undefined
      : createWriteStream(resolve(io.cwd, values['json-log']), { flags: 'a' });
  if (values.store !== undefined && values.archive !== undefined) {
    throw new CliError('--store and --archive both say where archives go: pass one of them', 2);
  }
  const shared = await openStoreFromSpec(values.store, {
    forProxy: { warn: (line) => io.stderr(`${line}\n`) },
  });
  const options: ProxyOptions = {
    ...(anthropicUpstream ? { anthropicUpstream } : {}),
    ...(openaiUpstream ? { openaiUpstream } : {}),
    host: values.host ?? '127.0.0.1',
    port,
    ...(mid !== undefined || hard !== undefined
      ? { thresholds: { ...(mid === undefined ? {} : { mid }), ...(hard === undefined ? {} : { hard }) } }
      : {}),
    ...(window === undefined ? {} : { contextWindow: window }),
    ...(upstreamTimeout === undefined ? {} : { upstreamTimeoutMs: upstreamTimeout * 1000 }),
    recall: values.recall === true,
    background: values.background === true,
    summarizer: await summarizerOption(values.summarizer, io, { anthropicUpstream, openaiUpstream }),
    counter: await createCliCounter(tokenizerOption(values.tokenizer ?? 'heuristic')),
    ...(values.archive
      ? { archive: createFileArchiveStore({ directory: resolve(io.cwd, values.archive) }) }
      : {}),
    ...(shared.archive ? { archive: shared.archive } : {}),
    ...(shared.stateStore ? { stateStore: shared.stateStore } : {}),
    ...(shared.proxyStore ? { store: shared.proxyStore } : {}),
    log: (line) => io.stderr(`${line}\n`),
    ...(jsonLog ? { onRequest: (record) => jsonLog.write(`${JSON.stringify(record)}\n`) } : {}),
  };
  const proxy = await startProxy(options).catch(async (error: unknown) => {
    await shared.close();
    throw new CliError(`cannot start: ${error instanceof Error ? error.message : String(error)}`, 2);
  });
  io.stdout(`listening on ${proxy.url}\n`);
  if (shared.proxyStore) io.stderr(`store ${shared.description}\n`);
  await stopSignal();
  await proxy.close();
  await shared.close();
  if (jsonLog) await new Promise<void>((done) => jsonLog.end(() => done()));
  return 0;
};

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CliError(`--port must be a whole number from 0 to 65535, got "${value}"`, 2);
  }
  return port;
}

/** `same` and `extractive` are the proxy's own; model specs talk to the matching upstream. */
async function summarizerOption(
  spec: string | undefined,
  io: CliIO,
  upstreams: { anthropicUpstream: string | undefined; openaiUpstream: string | undefined },
): Promise<'same' | 'extractive' | SummaryModel> {
  const trimmed = spec?.trim() ?? 'same';
  if (trimmed === 'same' || trimmed === 'extractive') return trimmed;
  const baseURL = trimmed.startsWith('anthropic:')
    ? upstreams.anthropicUpstream
    : openAIBase(upstreams.openaiUpstream);
  const model = await createSummaryModelFromSpec(trimmed, { env: io.env, ...(baseURL ? { baseURL } : {}) });
  return model ?? 'extractive';
}

/** The OpenAI SDK wants the `/v1` in its base URL. */
function openAIBase(upstream: string | undefined): string | undefined {
  if (upstream === undefined) return undefined;
  const trimmed = upstream.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

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
