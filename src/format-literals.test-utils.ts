/**
 * The structure test's format-literal rule: a wire format's name written as a string outside
 * `src/core/wire/` is a switch on the format that belongs in its folder (or the registry). Module
 * names (`import('openai')`) and comments are not literals; test files are inputs, not switches.
 */
import ts from 'typescript';

/** Every spelling a format goes by: the `WireFormat` names and the provider names built on them. */
const FORMAT_NAMES = new Set([
  'anthropic',
  'openai',
  'responses',
  'gemini',
  'openai-responses',
  'openai-chat',
]);

/**
 * Where format names may be written: a `wire/` folder — the core's (`core/wire/<format>/`) or, for
 * a format's piece that needs node, one under the package that owns it (`testing/wire/<format>/`,
 * `agent/wire/<format>/`) — and the list itself, `core/model/wire-format.ts`.
 */
const FORMAT_HOME = /(^|\/)wire\/|^core\/model\/wire-format\.ts$/;

/**
 * Files (relative to `src/`) that still write format names, with how many, when this rule arrived.
 * Each entry is future work or a name that is not a wire format (an agent, an SDK provider id, a
 * public option's value), said beside it: the count may only go down.
 */
export const FORMAT_LITERALS_ALLOWED = new Map<string, number>([
  // An SDK provider id (`SummaryModel.provider`, `anthropic:MODEL` in a summary's error): public.
  ['anthropic/index.ts', 2],
  // Benchmark code, owned elsewhere: an SDK provider id (`providerId: 'openai'`).
  ['bench/suites/frameworks.ts', 1],
  // Benchmark code, owned elsewhere: a `validateMessages` format option. Future work.
  ['bench/suites/responses.ts', 1],
  // The `gemini` subcommand runs the Gemini CLI agent: an agent name, not the format.
  ['cli/main.ts', 1],
  // Agent names (`AgentKind`, the `gemini` command, `@google/gemini-cli`), not the format.
  ['cli/wrap/agent-launch.ts', 5],
  // Lab code: the API each real agent speaks (spec data) and one Anthropic-only note. Future work.
  ['e2e/run.ts', 4],
  // An SDK provider id (`SummaryModel.provider`, `gemini:MODEL` in a summary's error): public.
  ['gemini/index.ts', 2],
  // Claude Code's session lines hold Anthropic messages: the agent's fact, not a switch.
  ['importers/claude-code.ts', 1],
  // A Gemini CLI chat record's `type: "gemini"` (the agent's turns), not the format.
  ['importers/gemini-cli.ts', 1],
  // `detectTranscriptFormat` returns the importer format name `anthropic`: public.
  ['importers/index.ts', 2],
  // The public `api: 'chat' | 'responses'` option of `createOpenAISummaryModel`.
  ['openai/index.ts', 2],
]);

/** True for a string that is a module name (`import … from 'openai'`, `import('openai')`). */
function isModuleName(node: ts.StringLiteralLike): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
  if (ts.isExternalModuleReference(parent)) return true;
  if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
  return ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.ImportKeyword;
}

/** The lines (1-based) where `file` writes a format name as a string. */
export function formatLiteralLines(file: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && FORMAT_NAMES.has(node.text) && !isModuleName(node))
      lines.push(file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lines;
}

/** True for a file the rule reads: source outside the formats' folders, not a test. */
export function readsFormatLiterals(name: string): boolean {
  if (FORMAT_HOME.test(name)) return false;
  return !/\.test(-utils)?\.tsx?$/.test(name) && !name.includes('__fixtures__/');
}
