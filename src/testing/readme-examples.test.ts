/**
 * Runs every TypeScript example in the README sections this package's adapters and test double
 * own, against the scripted model server, and checks each `console.log(...); // expected` comment.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const modules: Record<string, () => Promise<unknown>> = {
  'agent-compact': () => import('../index.js'),
  'agent-compact/anthropic': () => import('../anthropic/index.js'),
  'agent-compact/openai': () => import('../openai/index.js'),
  'agent-compact/ai-sdk': () => import('../ai-sdk/index.js'),
  'agent-compact/testing': () => import('./index.js'),
  '@anthropic-ai/sdk': () => import('@anthropic-ai/sdk'),
  openai: () => import('openai'),
  ai: () => import('ai'),
  'ai/test': () => import('ai/test'),
};

function examplesIn(file: string): string[] {
  const markdown = readFileSync(new URL(`../../docs/readme/${file}`, import.meta.url), 'utf8');
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** The expected output lines: the comment after each `console.log(...)`. */
function expectedOutput(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => line.trimStart().startsWith('console.log('))
    .map((line) => line.slice(line.lastIndexOf('// ') + 3).trim());
}

async function run(source: string): Promise<string[]> {
  const javascript = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const loaded: Record<string, unknown> = {};
  const body = javascript.replace(
    /^import\s+(?:(\w+)|\{([^}]*)\})\s+from\s+'([^']+)';$/gm,
    (_line, defaultName: string | undefined, named: string | undefined, specifier: string) => {
      if (!modules[specifier]) throw new Error(`example imports an unknown module ${specifier}`);
      loaded[specifier] = undefined;
      const source = `__modules[${JSON.stringify(specifier)}]`;
      if (defaultName) return `const ${defaultName} = ${source}.default;`;
      return `const { ${(named ?? '').replace(/\s+as\s+/g, ': ')} } = ${source};`;
    },
  );
  for (const specifier of Object.keys(loaded)) loaded[specifier] = await modules[specifier]?.();
  const output: string[] = [];
  const capture = { log: (...values: unknown[]) => output.push(values.map(String).join(' ')) };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...parameters: string[]
  ) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction('__modules', 'console', body)(loaded, capture);
  return output;
}

describe.each(['sdk-adapters.md', 'testing.md'])('docs/readme/%s', (file) => {
  const examples = examplesIn(file);
  it('has examples', () => expect(examples.length).toBeGreaterThan(0));
  it.each(examples.map((source, index) => [index + 1, source] as const))(
    'example %i runs and prints what its comments say',
    async (_index, source) => {
      const expected = expectedOutput(source);
      expect(expected.length).toBeGreaterThan(0);
      expect(await run(source)).toEqual(expected);
    },
  );
});
