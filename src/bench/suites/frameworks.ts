// Framework integrations beside the frameworks' own compaction, on one scripted 40-step task on a
// 32k window (a file of ~1,200 tokens read per step): did the run finish with every request
// accepted, peak and billed input tokens (summary calls included), cost at $3 per million input
// tokens, and how many of the 40 file paths and contents the last request still shows.
// `npm run bench -- frameworks`. Mastra runs where Node is 22.13 or later.

import { type ScriptedModelServer, startScriptedModelServer } from '@agent-compact/testing';
import {
  moduleText as fileText,
  moduleIndex as indexOf,
  READ_FILE_PARAMETERS,
  readingStep,
  READING_STEPS as STEPS,
  READING_TASK as TASK,
  READING_WINDOW as WINDOW,
} from '../../testing/_reading-task.js';

const PRICE_PER_INPUT_TOKEN = 3 / 1_000_000;

interface Row {
  framework: string;
  strategy: string;
  finished: boolean;
  requests: number;
  peak: number;
  billed: number;
  paths: number;
  contents: number;
}

/** A server whose agent requests (those with tools) read files in turn; others are summary calls. */
async function taskServer(): Promise<ScriptedModelServer> {
  let agentStep = 0;
  return startScriptedModelServer({
    contextWindow: WINDOW,
    script: (request) => {
      if (!Array.isArray(request.body.tools) || request.body.tools.length === 0) {
        return 'Summary: the agent is reading src/module-N.ts files one by one and reporting on them.';
      }
      return readingStep(agentStep++);
    },
  });
}

function rowOf(framework: string, strategy: string, server: ScriptedModelServer, finished: boolean): Row {
  const agentRequests = server.requests.filter((request) => Array.isArray(request.body.tools));
  const last = JSON.stringify(agentRequests.at(-1)?.body ?? {});
  let paths = 0;
  let contents = 0;
  for (let index = 0; index < STEPS; index++) {
    if (last.includes(`module-${index}.ts`)) paths++;
    if (last.includes(`value${index} = compute`)) contents++;
  }
  const ok = server.requests.every(
    (request) => request.outcome === 'text' || request.outcome === 'tool-calls',
  );
  return {
    framework,
    strategy,
    finished: finished && ok,
    requests: server.requests.length,
    peak: Math.max(...server.requests.map((request) => request.inputTokens)),
    billed: server.requests.reduce((sum, request) => sum + request.inputTokens, 0),
    paths,
    contents,
  };
}

async function measure(
  framework: string,
  strategy: string,
  go: (server: ScriptedModelServer) => Promise<unknown>,
) {
  const server = await taskServer();
  try {
    const finished = await go(server).then(
      () => true,
      () => false,
    );
    return rowOf(framework, strategy, server, finished);
  } finally {
    await server.close();
  }
}

async function langchainRows(): Promise<Row[]> {
  const { createAgent, contextEditingMiddleware, ClearToolUsesEdit, summarizationMiddleware } = await import(
    'langchain'
  );
  const { tool } = await import('@langchain/core/tools');
  const { ChatOpenAI } = await import('@langchain/openai');
  const { agentCompactMiddleware } = await import('agent-compact/langchain');
  const readFile = tool(async (input: { path: string }) => fileText(indexOf(input.path)), {
    name: 'read_file',
    description: 'Read a file',
    schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  });
  const model = (server: ScriptedModelServer) =>
    new ChatOpenAI({
      model: 'gpt-test',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: server.openaiBaseURL },
    });
  const variants: [string, (server: ScriptedModelServer) => unknown[]][] = [
    ['none', () => []],
    [
      'contextEditingMiddleware',
      () => [
        contextEditingMiddleware({
          edits: [new ClearToolUsesEdit({ trigger: { tokens: 19_000 }, keep: { messages: 3 } })],
        }),
      ],
    ],
    [
      'summarizationMiddleware',
      (server) => [summarizationMiddleware({ model: model(server), trigger: { tokens: 19_000 } })],
    ],
    ['agent-compact', () => [agentCompactMiddleware({ contextWindow: WINDOW })]],
  ];
  const rows: Row[] = [];
  for (const [strategy, middleware] of variants) {
    rows.push(
      await measure('LangChain', strategy, (server) => {
        const agent = createAgent({
          model: model(server),
          tools: [readFile],
          middleware: middleware(server) as never,
        });
        // The middleware list is typed loosely above, so the agent's input type is too.
        const invoke = agent.invoke.bind(agent) as (input: unknown, config: unknown) => Promise<unknown>;
        return invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 200 });
      }),
    );
  }
  return rows;
}

async function agentsRows(): Promise<Row[]> {
  const { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } = await import('@openai/agents');
  const { agentCompactFilter } = await import('agent-compact/openai-agents');
  setTracingDisabled(true);
  const readFile = tool({
    name: 'read_file',
    description: 'Read a file',
    parameters: READ_FILE_PARAMETERS,
    strict: true,
    execute: async (input) => fileText(indexOf(JSON.stringify(input))),
  });
  const rows: Row[] = [];
  for (const strategy of ['none', 'agent-compact']) {
    rows.push(
      await measure('OpenAI Agents SDK', strategy, (server) => {
        const provider = new OpenAIProvider({
          baseURL: server.openaiBaseURL,
          apiKey: 'k',
          useResponses: true,
        });
        const agent = new Agent({
          name: 'reader',
          instructions: 'You read files.',
          model: 'gpt-test',
          tools: [readFile],
        });
        return new Runner({ modelProvider: provider }).run(agent, TASK, {
          maxTurns: STEPS + 5,
          ...(strategy === 'agent-compact'
            ? { callModelInputFilter: agentCompactFilter({ contextWindow: WINDOW }) }
            : {}),
        });
      }),
    );
  }
  return rows;
}

async function mastraRows(): Promise<Row[]> {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const { TokenLimiterProcessor, ToolCallFilter } = await import('@mastra/core/processors');
  const { z } = await import('zod');
  const { AgentCompactProcessor } = await import('agent-compact/mastra');
  const readFile = createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => fileText(indexOf(path)),
  });
  const variants: [string, () => unknown[]][] = [
    ['none', () => []],
    ['TokenLimiterProcessor', () => [new TokenLimiterProcessor(24_000)]],
    ['ToolCallFilter', () => [new ToolCallFilter()]],
    ['agent-compact', () => [new AgentCompactProcessor({ contextWindow: WINDOW })]],
  ];
  const rows: Row[] = [];
  for (const [strategy, processors] of variants) {
    rows.push(
      await measure('Mastra', strategy, (server) =>
        new Agent({
          id: 'reader',
          name: 'reader',
          instructions: 'You read files.',
          model: { providerId: 'openai', modelId: 'gpt-test', url: server.openaiBaseURL, apiKey: 'k' },
          tools: { read_file: readFile },
          inputProcessors: processors() as never,
        }).generate(TASK, { maxSteps: STEPS + 5 }),
      ),
    );
  }
  return rows;
}

function print(rows: readonly Row[]) {
  console.log(
    '| framework | strategy | finished, all accepted | requests | peak input | billed input | cost | paths visible | contents visible |',
  );
  console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) {
    const cost = `$${(row.billed * PRICE_PER_INPUT_TOKEN).toFixed(3)}`;
    console.log(
      `| ${row.framework} | ${row.strategy} | ${row.finished ? 'yes' : 'no'} | ${row.requests} | ${row.peak.toLocaleString('en-US')} | ${row.billed.toLocaleString('en-US')} | ${cost} | ${row.paths}/${STEPS} | ${row.contents}/${STEPS} |`,
    );
  }
}

export async function run(): Promise<void> {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const rows = [...(await langchainRows()), ...(await agentsRows())];
  if (major > 22 || (major === 22 && minor >= 13)) rows.push(...(await mastraRows()));
  else console.log(`(Mastra skipped: it needs Node 22.13+, this is ${process.version})\n`);
  print(rows);
  // A strategy is dominated when another of the same framework finished too and is no worse on cost and paths kept, better on one.
  for (const ours of rows.filter((row) => row.strategy === 'agent-compact')) {
    const dominatedBy = rows.filter(
      (row) =>
        row.framework === ours.framework &&
        row !== ours &&
        row.finished &&
        row.billed <= ours.billed &&
        row.paths >= ours.paths &&
        (row.billed < ours.billed || row.paths > ours.paths),
    );
    const verdict =
      dominatedBy.length === 0
        ? 'not dominated'
        : `DOMINATED by ${dominatedBy.map((row) => row.strategy).join(', ')}`;
    console.log(
      `${ours.framework}: agent-compact ${ours.finished ? 'finished' : 'DID NOT FINISH'}, ${verdict}`,
    );
  }
}
