/**
 * Claude Code's forks through the proxy (`CLAUDE_CODE_FORK_SUBAGENT=1`): after its task, past hard,
 * the model starts two forks (`subagent_type: "fork"`) in one turn, each answering at once, then
 * says "Done.". A fork carries the main conversation's session key: the one that extends the main
 * conversation's history continues it, the other and the main conversation after them each start a
 * branch from the compacted prefix they share, so no request restarts its session.
 */
import type { AgentRun, AgentSpec } from './agent-runs.js';
import type { E2ECheck } from './e2e-checks.js';

type Script = (request: { body: Record<string, unknown> }) => unknown;

/** What Claude Code puts in a fork's first request. */
const FORK_MARK = '<fork-boilerplate>';

/** `spec` with forks: its own script until it would say "Done.", then two forks, then "Done.". */
export function forkingSpec(spec: AgentSpec): AgentSpec {
  return {
    ...spec,
    script: (workspace) => forkingScript(spec.script(workspace) as Script) as never,
    env: async (workspace, baseUrl) => ({
      ...(await spec.env(workspace, baseUrl)),
      CLAUDE_CODE_FORK_SUBAGENT: '1',
    }),
  };
}

function forkingScript(script: Script): Script {
  return (request) => {
    const messages = Array.isArray(request.body.messages)
      ? (request.body.messages as { content?: unknown }[])
      : [];
    if (JSON.stringify(messages.at(-1)?.content ?? '').includes(FORK_MARK)) return 'Fork finished its half.';
    if (JSON.stringify(messages).includes('"name":"Agent"')) return 'Done.';
    const step = script(request);
    if (step !== 'Done.') return step;
    const fork = (half: string) => ({
      name: 'Agent',
      input: {
        subagent_type: 'fork',
        description: `${half} half`,
        prompt: `Check the ${half} half of the files.`,
      },
    });
    return { type: 'tool-calls', calls: [fork('first'), fork('second')] };
  };
}

/** Both forks ran after a hard compaction, and no request of the run restarted its session. */
export function forkChecks(run: AgentRun): E2ECheck[] {
  const forks = run.traffic.server.filter((request) => JSON.stringify(request.body).includes(FORK_MARK));
  const hard = run.allRecords.filter((record) => record.layer === 'hard');
  const restarted = run.allRecords.filter((record) => record.restarted);
  return [
    {
      name: 'both forks ran after a hard compaction',
      passed: forks.length >= 2 && hard.length > 0,
      detail: `${forks.length} fork requests, ${hard.length} hard compactions`,
    },
    {
      name: 'no request restarted its session (each fork and the main conversation went on from the compacted prefix)',
      passed: restarted.length === 0,
      detail: `${restarted.length} of ${run.allRecords.length} requests restarted`,
    },
  ];
}
