import { createInterface } from 'node:readline';
import { type CliCommand, UsageError } from '../../cli/cli-io.js';
import { type AgentCliIO, parseAgentArgs, prepareAgent, subscribeInterrupt } from './run.js';

/** Help text of `chat`. */
export const chatHelp = `Usage: agent-compact chat [options]

Chats with the reference coding agent: each line you type is a request; the agent works on it
(status lines on stderr) and answers. Ctrl-C stops the current step; /exit or Ctrl-D ends the chat.
The session stays resumable with --resume.

Takes the options of agent-compact run (see agent-compact run --help).

Exit codes: 0 the chat ended, 2 bad arguments or a failed step.
`;

/**
 * `agent-compact chat`: an interactive session with the reference agent, one request per line.
 *
 * @example
 * // agent-compact chat --provider openai --base-url http://localhost:11434/v1 --model qwen3
 */
export const chatCommand: CliCommand = async (args, io: AgentCliIO) => {
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) {
    io.stdout(chatHelp);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`chat takes no task; type requests at the prompt (got "${positionals.join(' ')}")`);
  }
  const input = io.stdin ?? process.stdin;
  const interactive = io.isTTY && (input as { isTTY?: boolean }).isTTY === true;
  const lines = createInterface({
    input,
    ...(interactive ? { output: process.stderr, terminal: true } : { terminal: false }),
  });
  // Created at once: lines read while the session starts would otherwise be lost.
  const requests = lines[Symbol.asyncIterator]();
  let prepared: Awaited<ReturnType<typeof prepareAgent>>;
  try {
    prepared = await prepareAgent(values, io, interactive ? { prompt: lines } : {});
  } catch (error) {
    lines.close();
    throw error;
  }
  const { agent, session } = prepared;
  const resumeHint = `agent-compact chat --resume ${session.id}${values.workspace ? ` --workspace ${values.workspace}` : ''}`;

  let step: AbortController | undefined;
  let closed = false;
  const onInterrupt = () => {
    if (step) step.abort();
    else lines.close();
  };
  lines.on('SIGINT', onInterrupt);
  lines.on('close', () => {
    closed = true;
  });
  const unsubscribe = subscribeInterrupt(io, onInterrupt);
  let exitCode = 0;
  try {
    for (;;) {
      if (interactive && !closed) {
        lines.setPrompt('you> ');
        lines.prompt();
      }
      const next = await requests.next();
      if (next.done) break;
      const request = String(next.value).trim();
      if (request === '') continue;
      if (request === '/exit' || request === '/quit') break;
      step = new AbortController();
      try {
        await session.setState('running');
        const result = await agent.send(request, { signal: step.signal });
        switch (result.outcome) {
          case 'answered':
            await session.setState('answered');
            io.stdout(`${result.text}\n`);
            break;
          case 'max-steps':
            await session.setState('interrupted');
            io.stderr(
              `agent-compact: stopped after ${result.steps} steps (--max-steps); say "continue" to go on\n`,
            );
            break;
          case 'interrupted':
            await session.setState('interrupted');
            io.stderr('agent-compact: interrupted; say "continue" to go on\n');
            break;
          default: {
            const unreachable: never = result.outcome;
            throw new Error(`unknown outcome ${String(unreachable)}`);
          }
        }
      } catch (error) {
        await session.setState('failed').catch(() => {});
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        io.stderr(`agent-compact chat: ${message}\n`);
        exitCode = 2;
        break;
      } finally {
        step = undefined;
      }
    }
  } finally {
    unsubscribe();
    lines.close();
    prepared.close();
  }
  io.stderr(`agent-compact: session ${session.id} saved; continue with: ${resumeHint}\n`);
  return exitCode;
};
