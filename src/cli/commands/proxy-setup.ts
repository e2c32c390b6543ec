/**
 * The options `proxy` and `wrap` share, turned into a running proxy: parsing, stores, summarizer,
 * JSON log, and the refusal to serve a non-loopback address without a token.
 */
import { resolve } from 'node:path';
import type { SummaryModel } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';
import { isLoopbackHost, randomToken } from '../../proxy/access.js';
import {
  type ProxyOptions,
  type ProxyRequestRecord,
  type RunningProxy,
  startProxy,
} from '../../proxy/index.js';
import { DEFAULT_MAX_MEMORY_BYTES } from '../../proxy/memory-budget.js';
import { parseByteSize } from '../../proxy/upstream/request-body.js';
import { CliError, type CliIO, UsageError } from '../cli-io.js';
import {
  createCliCounter,
  type ParsedCommandArgs,
  positiveIntegerOption,
  tokenizerOption,
} from '../command-args.js';
import { chargedMemoryBytes } from '../memory-reserve.js';
import { openStoreFromSpec } from '../store-from-spec.js';
import { createSummaryModelFromSpec } from '../summarizer-from-spec.js';
import { openJsonLog } from './json-log.js';

/** The port when `--port` is not given. */
export const DEFAULT_PORT = 8787;

/** The proxy's options as `--help` lists them: `proxy` and `wrap` take the same ones. */
export const PROXY_OPTIONS_HELP = `  --upstream URL             where requests go, e.g. https://api.anthropic.com
  --anthropic-upstream URL   Anthropic traffic goes here instead
  --openai-upstream URL      OpenAI traffic (chat, responses, other paths) goes here instead
  --host H                   interface to listen on (default 127.0.0.1); any other address
                             needs --token
  --token TOKEN              every /agent-compact/* route asks for it (Authorization: Bearer
                             TOKEN, ?token=TOKEN, or the dashboard's cookie); default
                             AGENT_COMPACT_TOKEN, else a fresh random one, printed in the
                             dashboard address
  --allow-host NAME          serve requests whose Host is NAME too (repeatable); by default only
                             the bound address, localhost, 127.0.0.1 and [::1] are served, and
                             any other Host, a foreign Origin or a cross-site fetch gets a 403
  --gemini-upstream URL      Gemini traffic (/v1beta/models/…) goes here instead,
                             e.g. https://generativelanguage.googleapis.com; without it or
                             --upstream, Gemini requests get a 404 and go nowhere
  --port N                   port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --mid N                    mid threshold in tokens (default 50000, or 60% of --window less the
                             8192 kept for the answer)
  --hard N                   hard threshold in tokens (default 80000, or 85% of --window less the
                             8192 kept for the answer)
  --window N                 the model's context window; thresholds become fractions of it
  --summarizer SPEC          same (default: the client's own model and key), extractive,
                             anthropic:MODEL, openai:MODEL, openai-responses:MODEL or gemini:MODEL
                             (keys from ANTHROPIC_API_KEY / OPENAI_API_KEY / GEMINI_API_KEY),
                             through the matching upstream
  --archive DIR              keep what leaves the context in DIR, one file per conversation
  --store redis://HOST:PORT  keep conversations, archives and compactor state in Redis, shared by
                             every replica given the same URL (Redis down: requests go on uncompacted);
                             the password may come from AGENT_COMPACT_REDIS_PASSWORD instead of the URL
  --store-ttl T              with --store, a session's Redis keys expire T after its last write:
                             seconds, or with m, h or d (default 30d; 0 keeps them for ever)
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
  --max-memory SIZE          one budget for live sessions, kept bodies, in-memory archives,
                             dashboard subscribers and requests in flight; past it the least
                             recently used are evicted, and a request with no room waits
                             (default 512MiB; same units as --max-body)
  --tokenizer T              heuristic (default; provider usage anchors the count), o200k or cl100k
`;

/** The proxy's command-line options, as `util.parseArgs` declares them. */
export const PROXY_ARG_OPTIONS = {
  upstream: { type: 'string' },
  'anthropic-upstream': { type: 'string' },
  'openai-upstream': { type: 'string' },
  'gemini-upstream': { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
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
  notify: { type: 'boolean' },
  otel: { type: 'boolean' },
  tokenizer: { type: 'string' },
  'upstream-timeout': { type: 'string' },
  'max-body': { type: 'string' },
  'max-memory': { type: 'string' },
  'store-ttl': { type: 'string' },
} as const;

/** The parsed values of {@link PROXY_ARG_OPTIONS}. */
export type ProxyArgValues = ParsedCommandArgs<typeof PROXY_ARG_OPTIONS>['values'];

/** A proxy started from the command line, and how to stop it with everything it opened. */
export interface CliProxy {
  proxy: RunningProxy;
  /** The shared store's description when `--store` was given. */
  storeDescription: string | undefined;
  /**
   * The dashboard's address to print: with the token when the CLI made it up (loopback without
   * `--token`), without it when the user chose one (it may be a shared secret kept out of logs).
   */
  dashboardUrl: string;
  stop(): Promise<void>;
}

/** How the caller wants the proxy: its default port and upstreams, and whether to log each request. */
export interface CliProxyDefaults {
  defaultPort: number;
  /** Used where `--upstream` and the per-provider flags say nothing. */
  upstreams?: { anthropic: string; openai: string; gemini?: string };
  /** One line per request on stderr. */
  log: boolean;
  onRequest?: (record: ProxyRequestRecord) => void;
}

/** Starts the proxy the values describe; every mistake is a one-line CliError with exit code 2. */
export async function startProxyFromArgs(
  values: ProxyArgValues,
  io: CliIO,
  defaults: CliProxyDefaults,
): Promise<CliProxy> {
  const host = values.host ?? '127.0.0.1';
  const { token, chosen } = proxyToken(values, io, host);
  if (values.store !== undefined && values.archive !== undefined) {
    throw new CliError('--store and --archive both say where archives go: pass one of them', 2);
  }
  if (values['store-ttl'] !== undefined && values.store === undefined) {
    throw new CliError('--store-ttl sets how long Redis keeps a session: it needs --store redis://…', 2);
  }
  const upstreams = upstreamsOf(values, defaults);
  // Bad numbers fail before anything is opened.
  const limits = thresholdOptions(values);
  const port = values.port === undefined ? defaults.defaultPort : portOption(values.port);
  const jsonLog = values['json-log'] === undefined ? undefined : openJsonLog(values['json-log'], io);
  const shared = await openStoreFromSpec(values.store, {
    forProxy: { warn: (line) => io.stderr(`${line}\n`) },
    env: io.env,
    ...storeTtlOption(values['store-ttl']),
  });
  const options: ProxyOptions = {
    ...upstreams,
    host,
    ...(values['allow-host'] ? { allowHosts: values['allow-host'] } : {}),
    port,
    token,
    ...limits,
    recall: values.recall === true,
    background: values.background === true,
    notify: values.notify === true,
    ...(await tracingOption(values.otel === true)),
    ...(await modelOptions(values, io, upstreams)),
    ...storeOptions(values, io, shared),
    ...(defaults.log ? { log: (line: string) => io.stderr(`${line}\n`) } : {}),
    onRequest: (record) => {
      jsonLog?.write(record);
      defaults.onRequest?.(record);
    },
  };
  io.runsServer?.();
  const proxy = await startProxy(options).catch(async (error: unknown) => {
    await shared.close();
    throw new CliError(`cannot start: ${error instanceof Error ? error.message : String(error)}`, 2);
  });
  return {
    proxy,
    storeDescription: shared.proxyStore ? shared.description : undefined,
    dashboardUrl: `${proxy.url}/agent-compact/${chosen ? '' : `?token=${token}`}`,
    async stop() {
      await proxy.close();
      await shared.close();
      await jsonLog?.close();
    },
  };
}

/**
 * The token the proxy's own routes ask for: `--token` or `AGENT_COMPACT_TOKEN`, else a fresh random
 * one on loopback (other users of the machine and pages in a browser must not read the dashboard);
 * off loopback a token must be given.
 */
function proxyToken(values: ProxyArgValues, io: CliIO, host: string): { token: string; chosen: boolean } {
  const given = values.token ?? io.env.AGENT_COMPACT_TOKEN;
  if (given !== undefined && given !== '') return { token: given, chosen: true };
  if (!isLoopbackHost(host)) {
    throw new CliError(
      `refusing to listen on ${host} without a token: pass --token TOKEN (or set AGENT_COMPACT_TOKEN)`,
      2,
    );
  }
  return { token: randomToken(), chosen: false };
}

/** Each format's upstream: its own flag, else `--upstream`, else the command's default. */
function upstreamsOf(
  values: ProxyArgValues,
  defaults: CliProxyDefaults,
): Pick<ProxyOptions, 'anthropicUpstream' | 'openaiUpstream' | 'geminiUpstream'> {
  const anthropicUpstream = values['anthropic-upstream'] ?? values.upstream ?? defaults.upstreams?.anthropic;
  const openaiUpstream = values['openai-upstream'] ?? values.upstream ?? defaults.upstreams?.openai;
  const geminiUpstream = values['gemini-upstream'] ?? values.upstream ?? defaults.upstreams?.gemini;
  return {
    ...(anthropicUpstream ? { anthropicUpstream } : {}),
    ...(openaiUpstream ? { openaiUpstream } : {}),
    ...(geminiUpstream ? { geminiUpstream } : {}),
  };
}

/** The summary model (`--summarizer`) and the token counter (`--tokenizer`). */
async function modelOptions(
  values: ProxyArgValues,
  io: CliIO,
  { anthropicUpstream, openaiUpstream, geminiUpstream }: ReturnType<typeof upstreamsOf>,
): Promise<Pick<ProxyOptions, 'summarizer' | 'counter'>> {
  return {
    summarizer: await summarizerOption(values.summarizer, io, {
      anthropicUpstream,
      openaiUpstream,
      geminiUpstream,
    }),
    counter: await createCliCounter(tokenizerOption(values.tokenizer ?? 'heuristic'), {
      stderr: io.stderr,
      asked: values.tokenizer !== undefined,
    }),
  };
}

/** Where archives, session state and the proxy's sessions go: `--archive DIR`, or `--store`'s stores. */
function storeOptions(
  values: ProxyArgValues,
  io: CliIO,
  shared: Awaited<ReturnType<typeof openStoreFromSpec>>,
): Pick<ProxyOptions, 'archive' | 'stateStore' | 'store'> {
  return {
    ...(values.archive
      ? { archive: createFileArchiveStore({ directory: resolve(io.cwd, values.archive) }) }
      : {}),
    ...(shared.archive ? { archive: shared.archive } : {}),
    ...(shared.stateStore ? { stateStore: shared.stateStore } : {}),
    ...(shared.proxyStore ? { store: shared.proxyStore } : {}),
  };
}

/**
 * `--otel`, or an SDK that registered a tracer provider (e.g. `node --import` a setup file):
 * traces through `@opentelemetry/api`, which must then be installed.
 */
async function tracingOption(flag: boolean): Promise<Pick<ProxyOptions, 'tracing'>> {
  let otel: typeof import('../../otel/index.js');
  try {
    otel = await import('../../otel/index.js');
  } catch (error) {
    if (!flag) return {};
    throw new CliError(`--otel needs @opentelemetry/api installed (${String(error)})`, 2);
  }
  return flag || otel.isTracerProviderRegistered() ? { tracing: otel.createOtelProxyTracing() } : {};
}

/**
 * The limits among the flags; `--max-memory` (512 MiB unless given) becomes what the proxy charges
 * against, less what Node and V8 hold beside it (`chargedMemoryBytes`).
 */
export function thresholdOptions(
  values: ProxyArgValues,
): Pick<
  ProxyOptions,
  'thresholds' | 'contextWindow' | 'upstreamTimeoutMs' | 'maxBodyBytes' | 'maxMemoryBytes'
> {
  const mid = positiveIntegerOption('mid', values.mid);
  const hard = positiveIntegerOption('hard', values.hard);
  const window = positiveIntegerOption('window', values.window);
  const upstreamTimeout = positiveIntegerOption('upstream-timeout', values['upstream-timeout']);
  const maxBody = values['max-body'];
  const maxMemory = values['max-memory'];
  const maxMemoryBytes =
    maxMemory === undefined ? DEFAULT_MAX_MEMORY_BYTES : byteSizeOption(maxMemory, '--max-memory');
  return {
    ...(upstreamTimeout === undefined ? {} : { upstreamTimeoutMs: upstreamTimeout * 1000 }),
    ...(maxBody === undefined ? {} : { maxBodyBytes: byteSizeOption(maxBody, '--max-body') }),
    maxMemoryBytes: chargedMemoryBytes(maxMemoryBytes),
    ...(mid !== undefined || hard !== undefined
      ? { thresholds: { ...(mid === undefined ? {} : { mid }), ...(hard === undefined ? {} : { hard }) } }
      : {}),
    ...(window === undefined ? {} : { contextWindow: window }),
  };
}

/** `--max-body` or `--max-memory` in bytes: `33554432`, `32MiB`, `500KB`. */
function byteSizeOption(value: string, flag: string): number {
  try {
    return parseByteSize(value, flag);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
}

/** A session's keys live this long after its last write unless `--store-ttl` says otherwise. */
const DEFAULT_STORE_TTL_SECONDS = 30 * 24 * 3600;
const TTL_UNITS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** `--store-ttl`: `3600`, `90m`, `12h`, `30d`; `0` for no expiry. */
function storeTtlOption(value: string | undefined): { ttlSeconds?: number } {
  if (value === undefined) return { ttlSeconds: DEFAULT_STORE_TTL_SECONDS };
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) {
    throw new CliError(`--store-ttl takes seconds or a number with m, h or d, got "${value}"`, 2);
  }
  const seconds = Number(match[1]) * (TTL_UNITS[match[2] ?? ''] ?? 1);
  return seconds === 0 ? {} : { ttlSeconds: seconds };
}

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${value}"`);
  }
  return port;
}

/**
 * `same` and `extractive` are the proxy's own; model specs talk to the matching upstream (a Gemini
 * model without one talks to Google's API: its key never goes to the OpenAI upstream).
 */
async function summarizerOption(
  spec: string | undefined,
  io: CliIO,
  upstreams: SummaryUpstreams,
): Promise<'same' | 'extractive' | SummaryModel> {
  const trimmed = spec?.trim() ?? 'same';
  if (trimmed === 'same' || trimmed === 'extractive') return trimmed;
  const baseURL = summaryBaseURL(trimmed, upstreams);
  const model = await createSummaryModelFromSpec(trimmed, { env: io.env, ...(baseURL ? { baseURL } : {}) });
  return model ?? 'extractive';
}

/** Each provider's upstream, as the flags gave them. */
interface SummaryUpstreams {
  anthropicUpstream: string | undefined;
  openaiUpstream: string | undefined;
  geminiUpstream: string | undefined;
}

/** The upstream a summary model spec talks to; undefined: its SDK's default (the provider's API). */
export function summaryBaseURL(spec: string, upstreams: SummaryUpstreams): string | undefined {
  if (spec.startsWith('anthropic:')) return upstreams.anthropicUpstream;
  if (spec.startsWith('gemini:')) return upstreams.geminiUpstream;
  return openAIBase(upstreams.openaiUpstream);
}

/** The OpenAI SDK wants the `/v1` in its base URL. */
function openAIBase(upstream: string | undefined): string | undefined {
  if (upstream === undefined) return undefined;
  const trimmed = upstream.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}
