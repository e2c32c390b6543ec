import type { ArchiveStore, SessionStateStore, SummaryModel, TokenCounter } from 'agent-compact';
import type { ProxyRequestRecord, ProxyStats } from './proxy-stats.js';
import type { ProxyTracing } from './proxy-tracing.js';
import type { ProxySessionStore } from './session-store.js';

/** Options of {@link startProxy}. */
export interface ProxyOptions {
  /** The upstream for all three APIs, e.g. `https://api.anthropic.com` or a local server. */
  upstream?: string;
  /** Where Anthropic traffic goes instead of `upstream`. */
  anthropicUpstream?: string;
  /** Where OpenAI traffic (chat, responses, everything else) goes instead of `upstream`. */
  openaiUpstream?: string;
  /**
   * Where Gemini traffic (`/v1beta/models/…`) goes. Without it or `upstream`, Gemini requests are
   * answered 404 and never forwarded: the OpenAI upstream would receive the client's Google key.
   * @default `upstream`
   */
  geminiUpstream?: string;
  /** The interface to listen on; any but loopback needs `token`. @default '127.0.0.1' */
  host?: string;
  /**
   * Host names served besides the bound address, localhost, 127.0.0.1 and [::1] (`--allow-host`):
   * a request whose `Host` names anything else gets a 403, so a page that rebinds its own name to
   * the proxy's address is served nothing. A page of one of these names may also call the proxy
   * from another origin; any other `Origin`, and every `Sec-Fetch-Site: cross-site`, gets a 403.
   * @default []
   */
  allowHosts?: readonly string[];
  /** The port; 0 picks a free one. @default 0 */
  port?: number;
  /** Token thresholds of mid and hard compaction. @default the core's (50,000 / 80,000) */
  thresholds?: { mid?: number; hard?: number };
  /** The model's context window; thresholds become fractions of it. */
  contextWindow?: number;
  /**
   * Who writes hard summaries: `'same'` borrows the client's own provider, model and key from the
   * request; `'extractive'` is offline; or any {@link SummaryModel}.
   * @default 'same'
   */
  summarizer?: 'same' | 'extractive' | SummaryModel;
  /**
   * Give the model a `recall` tool that the proxy answers itself, and name archive ids in
   * placeholders. Without it placeholders name no recall id.
   * @default false
   */
  recall?: boolean;
  /**
   * Write hard summaries in the background (`hard: { background: true }` on every session's
   * compactor): past the hard threshold the summary starts while the client's requests keep going
   * upstream, and the first request after it is ready carries it. A request waits for it only past
   * the background limit (the hard threshold plus the mid-to-hard span).
   * @default false
   */
  background?: boolean;
  /** Where removed content is kept, one archive session per conversation. @default in memory */
  archive?: ArchiveStore;
  /** Counts tokens. @default the core's heuristic counter */
  counter?: TokenCounter;
  /** Where session state is kept between requests. @default an in-memory store of 1000 sessions */
  store?: ProxySessionStore;
  /**
   * Where each session's compactor keeps its own state (ids handed out, calibrated counts), so a
   * conversation can move between proxy processes. @default kept in memory
   */
  stateStore?: SessionStateStore;
  /** Receives one line per request (no trailing newline). @default none */
  log?: (line: string) => void;
  /** Receives one record per request, e.g. to write JSON lines. @default none */
  onRequest?: (record: ProxyRequestRecord) => void;
  /**
   * Guards every `/agent-compact/*` route (`Authorization: Bearer TOKEN`, `?token=`, or the cookie
   * the dashboard's page sets when opened with `?token=`); required when `host` is not a loopback
   * address. The CLI makes a random one when none is given. @default none
   */
  token?: string;
  /**
   * After a hard compaction, put a one-line note (`[agent-compact: context compacted A → B tokens
   * (hard)]`) in front of the streamed answer's first text, so the agent's user sees it. @default false
   */
  notify?: boolean;
  /**
   * Serve the dashboard at `/agent-compact/` (sessions, compactions, archived items, exports),
   * kept in memory. @default true
   */
  dashboard?: boolean;
  /** Traces requests and compactions, e.g. `createOtelProxyTracing()` from `@agent-compact/proxy/otel`. */
  tracing?: ProxyTracing;
  /**
   * The longest one exchange may take, from arrival to the end of the answer: past it the upstream
   * call is cancelled, the client gets a 504 and the session's next request goes ahead.
   * @default 600000 (10 minutes)
   */
  upstreamTimeoutMs?: number;
  /**
   * The largest request body the proxy takes, in bytes (`--max-body`): past it the client gets a 413
   * in the provider's error shape as soon as the declared length or the bytes read pass it, and the
   * rest of the body is never read.
   * @default 33554432 (32 MiB)
   */
  maxBodyBytes?: number;
  /**
   * The one byte budget (`--max-memory`) of what the proxy holds per session and per client: live
   * compactors with their session state and in-memory archives, kept request bodies, dashboard
   * subscribers' unsent events, and the requests in flight (body and parse). Past it the least
   * recently used are evicted: a compactor is rebuilt from the session's next request; an in-memory
   * archive loses its items (`archive` keeps them); a subscriber is disconnected. A request it has
   * no room for waits for earlier ones to finish (503 after `upstreamTimeoutMs`).
   * @default 536870912 (512 MiB)
   */
  maxMemoryBytes?: number;
}

/** A running proxy. */
export interface RunningProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:41234`; clients use it as their base URL. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Totals since start, as served at `GET /agent-compact/stats`. */
  stats(): Promise<ProxyStats>;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}
