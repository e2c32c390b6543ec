import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';

// Mastra 1.x needs Node 22.13 or later; CI runs the whole suite on Node 24 as well.
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const supported = major > 22 || (major === 22 && minor >= 13);
if (!supported)
  console.warn(`agent-compact/mastra tests skipped: Mastra needs Node 22.13+, this is ${process.version}`);

const steps = 40;
const window = 32_000;
const answer = 'All 40 modules read.';
const fileText = (index: number) =>
  `// src/module-${index}.ts\n${`export const value${index} = compute(input, options, ${index});\n`.repeat(90)}`;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentOn(scripted: ScriptedModelServer, inputProcessors: unknown[]) {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const { z } = await import('zod');
  const readFile = createTool({
    id: 'read_file',
    description: 'Read a file of the workspace',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => fileText(Number(/(\d+)/.exec(path)![1])),
  });
  return new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'You read files and report on them.',
    model: { providerId: 'openai', modelId: 'gpt-test', url: scripted.openaiBaseURL, apiKey: 'test-key' },
    tools: { read_file: readFile },
    inputProcessors: inputProcessors as never,
  });
}

async function start() {
  server = await startScriptedModelServer({
    contextWindow: window,
    script: ({ index }) =>
      index < steps
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/module-${index}.ts` } }] }
        : answer,
  });
  return server;
}

const task = 'Read src/module-0.ts to src/module-39.ts.';

describe.skipIf(!supported)('AgentCompactProcessor', () => {
  it('keeps a 40-step Mastra agent on a 32k window valid and under the window', async () => {
    const { AgentCompactProcessor } = await import('./index.js');
    const scripted = await start();
    const events: CompactionEvent[] = [];
    const processor = new AgentCompactProcessor({
      contextWindow: window,
      onEvent: (event) => events.push(event),
    });
    const agent = await agentOn(scripted, [processor]);
    const result = await agent.generate(task, { maxSteps: steps + 5 });
    expect(result.text).toBe(answer);
    expect(scripted.requests).toHaveLength(steps + 1);
    expect(
      scripted.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
    ).toEqual([]);
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'micro')).toBe(true);
    // The agent's own record keeps every tool result whole.
    expect(result.steps).toHaveLength(steps + 1);
    expect(JSON.stringify(result.steps[0]!.toolResults)).toContain('value0 = compute');
  });

  it('without it, the same agent overflows the window', async () => {
    const scripted = await start();
    const agent = await agentOn(scripted, []);
    await agent.generate(task, { maxSteps: steps + 5 }).catch(() => undefined);
    expect(scripted.requests.some((request) => request.outcome === 'prompt-too-long')).toBe(true);
  });
});
