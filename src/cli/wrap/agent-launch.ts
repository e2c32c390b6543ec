/**
 * How each agent is pointed at the proxy: Claude Code and Gemini CLI by a base-URL variable, Codex
 * by a `model_providers` override on its command line (its own auth kept), opencode by the base-URL
 * variables of the AI SDK providers it runs on, OpenAI-compatible agents by `OPENAI_BASE_URL`; an
 * agent we do not know gets both base-URL variables and a note.
 */
import { basename } from 'node:path';

/** What the proxy forwards to when `--upstream` says nothing, per provider family. */
export const DEFAULT_UPSTREAMS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
} as const;
/** Where Gemini CLI traffic goes: the proxy serves its generateContent routes and compacts them. */
const GEMINI_UPSTREAM = 'https://generativelanguage.googleapis.com';
/** The provider id the Codex override adds. */
const CODEX_PROVIDER = 'agent_compact';

/** The agents `wrap` knows by the name of their command. */
export type AgentKind = 'claude' | 'codex' | 'gemini' | 'opencode' | 'openai-compatible' | 'unknown';

/** How to start the agent, and where the proxy should forward. */
export interface AgentLaunch {
  kind: AgentKind;
  command: string;
  args: string[];
  /** Variables added to the agent's environment. */
  env: Record<string, string>;
  upstreams: { anthropic: string; openai: string; gemini?: string };
  /** A line for stderr when the setting is a guess. */
  note?: string;
}

/** OpenAI-compatible agents that read `OPENAI_BASE_URL`. */
const openAICompatible = new Set(['crush', 'aider']);

/** Runtimes whose first argument is the agent's script (`node …/@openai/codex/bin/codex.js`). */
const runtimes = new Set(['node', 'bun', 'deno']);
/** npm packages of the agents, for a script run by a runtime. */
const packagePaths: ReadonlyArray<readonly [string, AgentKind]> = [
  ['/@anthropic-ai/claude-code/', 'claude'],
  ['/@openai/codex/', 'codex'],
  ['/@google/gemini-cli/', 'gemini'],
];

/** The kind of agent a command names (`/usr/bin/claude`, `codex.js`, `gemini`). */
export function agentKind(command: string): AgentKind {
  const name = basename(command).replace(/\.(c?js|mjs|cmd|exe)$/, '');
  if (name === 'claude') return 'claude';
  if (name === 'codex') return 'codex';
  if (name === 'gemini') return 'gemini';
  if (name === 'opencode') return 'opencode';
  if (openAICompatible.has(name)) return 'openai-compatible';
  return packagePaths.find(([path]) => command.replaceAll('\\', '/').includes(path))?.[1] ?? 'unknown';
}

/** The agent's kind and where its own arguments start: after the script when a runtime runs it. */
function agentOf(command: string, args: readonly string[]): { kind: AgentKind; skip: number } {
  const name = basename(command).replace(/\.exe$/, '');
  const script = args[0];
  if (runtimes.has(name) && script !== undefined) return { kind: agentKind(script), skip: 1 };
  return { kind: agentKind(command), skip: 0 };
}

/** The variables whose base URL the proxy forwards to, for each upstream `wrap` starts it with. */
const BASE_URL_VARIABLES = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
  gemini: 'GOOGLE_GEMINI_BASE_URL',
} as const;

/**
 * Where the proxy forwards: the base URL the agent's environment already named (a company gateway,
 * a local model server), which `wrap` replaces with the proxy's; else the provider's own API. The
 * agent would have sent its requests, and its key, there: forwarding them to the provider instead
 * hands a gateway's token (or a local model's conversation) to a third party.
 */
function upstreamsOf(kind: AgentKind, env: Record<string, string | undefined>): AgentLaunch['upstreams'] {
  const given = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const gemini = given(BASE_URL_VARIABLES.gemini) ?? (kind === 'gemini' ? GEMINI_UPSTREAM : undefined);
  return {
    anthropic: given(BASE_URL_VARIABLES.anthropic) ?? DEFAULT_UPSTREAMS.anthropic,
    openai: given(BASE_URL_VARIABLES.openai) ?? DEFAULT_UPSTREAMS.openai,
    ...(gemini === undefined ? {} : { gemini }),
  };
}

/**
 * The launch of `command args` through the proxy at `proxyUrl`. `env` is the agent's environment,
 * read for the base URLs it already names (the proxy's upstreams) and to keep Codex's own auth: an
 * `OPENAI_API_KEY` it already has, else its login.
 */
export function agentLaunch(
  command: string,
  args: readonly string[],
  proxyUrl: string,
  env: Record<string, string | undefined>,
): AgentLaunch {
  const { kind, skip } = agentOf(command, args);
  const base = { kind, command, args: [...args], upstreams: upstreamsOf(kind, env) };
  switch (kind) {
    case 'claude':
      return { ...base, env: { ANTHROPIC_BASE_URL: proxyUrl } };
    case 'codex':
      return {
        ...base,
        args: [...args.slice(0, skip), ...codexOverride(proxyUrl, env), ...args.slice(skip)],
        env: {},
      };
    case 'gemini':
      return {
        ...base,
        env: { GOOGLE_GEMINI_BASE_URL: proxyUrl },
      };
    case 'opencode':
      // The AI SDK's Anthropic and OpenAI providers take a base URL that ends in `/v1` (Claude
      // Code's has none): opencode on an Anthropic key posts `${ANTHROPIC_BASE_URL}/messages`.
      return { ...base, env: { ANTHROPIC_BASE_URL: `${proxyUrl}/v1`, OPENAI_BASE_URL: `${proxyUrl}/v1` } };
    case 'openai-compatible':
      return { ...base, env: { OPENAI_BASE_URL: `${proxyUrl}/v1` } };
    case 'unknown':
      return {
        ...base,
        env: { ANTHROPIC_BASE_URL: proxyUrl, OPENAI_BASE_URL: `${proxyUrl}/v1` },
        note: `agent-compact: "${basename(command)}" is not an agent wrap knows; it gets ANTHROPIC_BASE_URL and OPENAI_BASE_URL — point it at ${proxyUrl} yourself if it reads neither`,
      };
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/**
 * `codex -c key=value` flags (values are TOML) that add a provider at the proxy and select it.
 * Auth stays Codex's: the key in `OPENAI_API_KEY` when set, else its own login.
 */
function codexOverride(proxyUrl: string, env: Record<string, string | undefined>): string[] {
  const key = `model_providers.${CODEX_PROVIDER}`;
  const auth =
    env.OPENAI_API_KEY !== undefined && env.OPENAI_API_KEY !== ''
      ? `${key}.env_key="OPENAI_API_KEY"`
      : `${key}.requires_openai_auth=true`;
  return [
    `${key}.name="agent-compact"`,
    `${key}.base_url="${proxyUrl}/v1"`,
    `${key}.wire_api="responses"`,
    auth,
    `model_provider="${CODEX_PROVIDER}"`,
  ].flatMap((setting) => ['-c', setting]);
}
