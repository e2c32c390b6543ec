// Loads the shared mini-swe-agent × Gemini 3 Pro runs (../shared/data/trajectories/… relative to
// the repository root) as conversations in the library's message model, with the prompt tokens the
// provider reported before each assistant turn, and replays them to measure token counters. Used by
// the `tokens` benchmark and the accuracy test; not part of the package's API.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Message, TokenCounter } from 'agent-compact';
import { createAnchoredCounter, createIncrementalCounter } from 'agent-compact/counters';

/** The folder of `*.traj.json` files; src/bench and dist/bench are both two levels below the root. */
export const miniSweAgentTrajectoriesDir = fileURLToPath(
  new URL(
    '../../../shared/data/trajectories/mini-swe-agent-gemini-3-pro-swebench-verified/trajs/',
    import.meta.url,
  ),
);

/** One assistant turn: the prompt was the system prompt plus `messages[0..messageCount-1]`. */
export interface ReplayTurn {
  messageCount: number;
  providerTokens: number;
}

/** One run, converted: the system message became `system`, the rest are `messages`. */
export interface ReplayRun {
  id: string;
  system: string | undefined;
  messages: Message[];
  /** The messages as the seed would serialize them (role and content, system message first). */
  rawMessages: { role: string; content: string }[];
  turns: ReplayTurn[];
}

interface TrajectoryFile {
  messages: {
    role: string;
    content: string;
    extra?: { response?: { usage?: { prompt_tokens?: number } } };
  }[];
}

/** True when the shared data folder is present. */
export function hasMiniSweAgentData(): boolean {
  return existsSync(miniSweAgentTrajectoriesDir);
}

/** Loads the runs, sorted by file name; `every: 6` keeps every sixth file (a representative subset). */
export function loadReplayRuns({ every = 1 }: { every?: number } = {}): ReplayRun[] {
  const files = readdirSync(miniSweAgentTrajectoriesDir)
    .filter((file) => file.endsWith('.traj.json'))
    .sort()
    .filter((_, index) => index % every === 0);
  return files.map((file) => {
    const trajectory = JSON.parse(readFileSync(miniSweAgentTrajectoriesDir + file, 'utf8')) as TrajectoryFile;
    const rawMessages = trajectory.messages.map(({ role, content }) => ({ role, content }));
    const first = trajectory.messages[0];
    const system = first?.role === 'system' ? first.content : undefined;
    const rest = system === undefined ? trajectory.messages : trajectory.messages.slice(1);
    const messages: Message[] = rest.map(({ role, content }) => ({
      role: role === 'assistant' ? 'assistant' : 'user',
      content,
    }));
    const turns: ReplayTurn[] = [];
    rest.forEach((message, index) => {
      const providerTokens = message.extra?.response?.usage?.prompt_tokens;
      if (message.role === 'assistant' && typeof providerTokens === 'number') {
        turns.push({ messageCount: index, providerTokens });
      }
    });
    return { id: file.replace(/\.traj\.json$/, ''), system, messages, rawMessages, turns };
  });
}

/** Relative errors `|estimate − provider| / provider` of three ways of counting, one entry per turn. */
export interface ReplayErrors {
  /** `JSON.stringify(messages).length / 4`, the seed's way. */
  charactersOver4: number[];
  /** The local counter alone. */
  unanchored: number[];
  /** The local counter anchored to the previous turn's reported usage. */
  anchored: number[];
}

/**
 * Replays every run turn by turn: before each assistant turn, estimates the prompt three ways and
 * compares with the provider's number. The anchored counter is fresh for each run and observes the
 * previous turn's usage, so the first turn of each run is counted locally.
 */
export function replayErrors(runs: readonly ReplayRun[], counter: TokenCounter): ReplayErrors {
  const errors: ReplayErrors = { charactersOver4: [], unanchored: [], anchored: [] };
  const relativeError = (estimate: number, actual: number) => Math.abs(estimate - actual) / actual;
  for (const run of runs) {
    const unanchored = createIncrementalCounter(counter);
    const anchored = createAnchoredCounter({ counter });
    const systemOffset = run.system === undefined ? 0 : 1;
    let previous: ReplayTurn | undefined;
    for (const turn of run.turns) {
      const prompt = run.messages.slice(0, turn.messageCount);
      const seedEstimate =
        JSON.stringify(run.rawMessages.slice(0, turn.messageCount + systemOffset)).length / 4;
      errors.charactersOver4.push(relativeError(seedEstimate, turn.providerTokens));
      errors.unanchored.push(relativeError(unanchored.count(prompt, run.system), turn.providerTokens));
      if (previous) {
        anchored.observe(
          { prompt_tokens: previous.providerTokens },
          run.messages.slice(0, previous.messageCount),
          run.system,
        );
      }
      errors.anchored.push(relativeError(anchored.count(prompt, run.system), turn.providerTokens));
      previous = turn;
    }
  }
  return errors;
}

/** The value below which `fraction` of the values lie (nearest rank). */
export function quantile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}
