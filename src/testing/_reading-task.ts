// The scripted task the framework integrations are tested and benchmarked on: an agent reads
// src/module-0.ts … src/module-39.ts, one file (~1,200 tokens) a step, on a 32k window — more than
// the window holds whole, so a run finishes only if what the model sees is compacted.
import type { ScriptStep } from './script.js';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

/** Files read, one a step. */
export const READING_STEPS = 40;
/** The model's window: 40 whole files (~48k tokens) do not fit. */
export const READING_WINDOW = 32_000;
/** The agent's final answer. */
export const READING_ANSWER = 'All 40 modules read.';
/** The user's task. */
export const READING_TASK = 'Read src/module-0.ts to src/module-39.ts.';

/** The text of src/module-`index`.ts. */
export const moduleText = (index: number): string =>
  `// src/module-${index}.ts\n${`export const value${index} = compute(input, options, ${index});\n`.repeat(90)}`;

/** The `read_file` tool's input schema (JSON Schema, strict: the Agents SDK's strict tools need it closed). */
export const READ_FILE_PARAMETERS = {
  type: 'object' as const,
  properties: { path: { type: 'string' as const } },
  required: ['path'],
  additionalProperties: false as const,
};

/** The module number a path or tool input names. */
export const moduleIndex = (pathOrInput: string): number => Number(/(\d+)/.exec(pathOrInput)?.[1] ?? 0);

/** The model's step `step`: a `read_file` call for the next module, then the answer. */
export function readingStep(step: number, answer = READING_ANSWER): ScriptStep {
  return step < READING_STEPS
    ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/module-${step}.ts` } }] }
    : answer;
}

/** A scripted server that answers request `index` with {@link readingStep}. */
export function startReadingServer(answer = READING_ANSWER): Promise<ScriptedModelServer> {
  return startScriptedModelServer({
    contextWindow: READING_WINDOW,
    script: ({ index }) => readingStep(index, answer),
  });
}

/** The requests the server answered with anything but text or tool calls: none in a passing run. */
export function rejectedRequests(server: ScriptedModelServer): ScriptedModelServer['requests'] {
  return server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text');
}

/** Mastra 1.x needs Node 22.13 or later. */
export function nodeRunsMastra(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  return major > 22 || (major === 22 && minor >= 13);
}
