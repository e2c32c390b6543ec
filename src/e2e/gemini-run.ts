/**
 * What the real Gemini CLI (`gemini -p … --yolo`) needs for the e2e task. Gemini CLI needs a trusted workspace (else exit 55), an API key and the
 * `gemini-api-key` auth type in `$HOME/.gemini/settings.json`; a scratch HOME keeps the user's own
 * settings out. Besides the main turn it makes JSON-mode `generateContent` calls (its model
 * router), which the script answers with JSON that fits the requested schema.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedRequest, ScriptStep } from '@agent-compact/testing';

/** Gemini CLI's shell tool (0.61). */
const SHELL_TOOL = 'run_shell_command';
const summaryMarker = 'Write a dense summary';

type Json = Record<string, unknown>;

function declaredTools(body: Json | undefined): string[] {
  const tools = Array.isArray(body?.tools)
    ? (body.tools as { functionDeclarations?: { name?: string }[] }[])
    : [];
  return tools.flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => String(declaration.name)),
  );
}

const isMain = (request: { body?: Json }) => declaredTools(request.body).includes(SHELL_TOOL);
const isSummary = (request: { body?: Json }) =>
  JSON.stringify(request.body?.contents ?? '').includes(summaryMarker);

/** A value that satisfies a Gemini response schema (OpenAPI-style `OBJECT` or JSON Schema `object`). */
export function valueForSchema(schema: unknown): unknown {
  const node = (schema ?? {}) as { type?: unknown; enum?: unknown[]; properties?: Record<string, unknown> };
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  switch (String(node.type ?? 'object').toLowerCase()) {
    case 'object':
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([name, child]) => [name, valueForSchema(child)]),
      );
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return 50;
    case 'boolean':
      return false;
    default:
      return 'scripted';
  }
}

/**
 * The script: JSON answers to JSON-mode calls, `steps` shell calls on the main turn (the first one
 * `firstCommand` when given), then "Done.".
 */
export function geminiScript(steps: number, firstCommand?: string) {
  let step = 0;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (isSummary(request))
      return '## Task and constraints\nCount numbers in files.\n## Current state\nCounting.';
    const config = (request.body.generationConfig ?? {}) as Json;
    const schema = config.responseJsonSchema ?? config.responseSchema;
    if (schema !== undefined || config.responseMimeType === 'application/json')
      return JSON.stringify(valueForSchema(schema));
    if (!isMain(request)) return 'ok';
    step += 1;
    if (step > steps) return 'Done.';
    const command =
      step === 1 && firstCommand !== undefined
        ? firstCommand
        : `seq 1 6000 > part${step}.txt && cat part${step}.txt`;
    return {
      type: 'tool-calls',
      calls: [{ name: SHELL_TOOL, input: { command, description: `write part ${step}` } }],
    };
  };
}

/** A scratch HOME whose settings pick API-key auth, so the CLI neither prompts nor opens a browser. */
export async function geminiHome(workspace: string): Promise<string> {
  const home = join(workspace, '.gemini-home');
  await mkdir(join(home, '.gemini'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'gemini-api-key' } } };
  await writeFile(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings)}\n`);
  return home;
}
