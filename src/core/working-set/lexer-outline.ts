import type { CodeDefinition, CodeLanguage } from './code-outline.js';

/** A signature is cut to this many characters: the name and parameters, rarely more. */
export const SIGNATURE_CHARS = 160;
/** How far a definition's end is looked for, in lines (a longer body ends where the search stops). */
const MAX_BODY_LINES = 4000;

interface Pattern {
  kind: string;
  pattern: RegExp;
}

// One pattern per kind of definition, tried in order on each line; the name is the `name` group.
const tsPatterns: Pattern[] = [
  {
    kind: 'function',
    pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?<name>[A-Za-z_$][\w$]*)/,
  },
  {
    kind: 'class',
    pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(?<name>[A-Za-z_$][\w$]*)/,
  },
  { kind: 'interface', pattern: /^\s*(?:export\s+)?(?:declare\s+)?interface\s+(?<name>[A-Za-z_$][\w$]*)/ },
  {
    kind: 'type',
    pattern: /^\s*(?:export\s+)?(?:declare\s+)?type\s+(?<name>[A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/,
  },
  { kind: 'enum', pattern: /^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(?<name>[A-Za-z_$][\w$]*)/ },
  {
    kind: 'function',
    pattern:
      /^\s*(?:export\s+)?(?:const|let|var)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/,
  },
  {
    kind: 'method',
    pattern:
      /^\s+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*(?<name>[A-Za-z_$#][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*$/,
  },
];
const pythonPatterns: Pattern[] = [
  { kind: 'function', pattern: /^\s*(?:async\s+)?def\s+(?<name>[A-Za-z_]\w*)\s*\(/ },
  { kind: 'class', pattern: /^\s*class\s+(?<name>[A-Za-z_]\w*)/ },
];
const goPatterns: Pattern[] = [
  { kind: 'method', pattern: /^func\s+\([^)]*\)\s*(?<name>[A-Za-z_]\w*)\s*[[(]/ },
  { kind: 'function', pattern: /^func\s+(?<name>[A-Za-z_]\w*)\s*[[(]/ },
  {
    kind: 'type',
    pattern: /^(?:type\s+|\t)(?<name>[A-Za-z_]\w*)\s+(?:\[[^\]]*\]\s*)?(?:struct|interface)\b/,
  },
  { kind: 'type', pattern: /^type\s+(?<name>[A-Za-z_]\w*)\s+(?!struct|interface)[\w.*[\]]/ },
];
const rustPatterns: Pattern[] = [
  {
    kind: 'function',
    pattern:
      /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(?<name>[A-Za-z_]\w*)/,
  },
  { kind: 'struct', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+(?<name>[A-Za-z_]\w*)/ },
  { kind: 'enum', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?enum\s+(?<name>[A-Za-z_]\w*)/ },
  { kind: 'trait', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+(?<name>[A-Za-z_]\w*)/ },
  {
    kind: 'impl',
    pattern: /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?(?<name>[A-Za-z_][\w:]*)/,
  },
  { kind: 'type', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?type\s+(?<name>[A-Za-z_]\w*)/ },
  { kind: 'module', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?<name>[A-Za-z_]\w*)/ },
];
const javaPatterns: Pattern[] = [
  {
    kind: 'class',
    pattern:
      /^\s*(?:(?:public|private|protected|static|final|abstract|sealed|non-sealed)\s+)*(?:class|interface|enum|record|@interface)\s+(?<name>[A-Za-z_$][\w$]*)/,
  },
  {
    kind: 'constructor',
    pattern: /^\s+(?:public|private|protected)\s+(?<name>[A-Z][\w$]*)\s*\([^;]*$/,
  },
  {
    kind: 'method',
    pattern:
      /^\s+(?:(?:public|private|protected|static|final|abstract|synchronized|native|default)\s+)*(?:<[^>]*>\s+)?[\w$.<>[\],? ]+\s+(?<name>[A-Za-z_$][\w$]*)\s*\([^;]*$/,
  },
];

// Top-level constants and variables (a file name, a limit, a flag: names the agent reaches for
// again), tried when no definition matched. Go's grouped `const (`…`)` entries are found apart.
const tsConstants: Pattern[] = [
  { kind: 'constant', pattern: /^(?:export\s+)?const\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/ },
  { kind: 'variable', pattern: /^(?:export\s+)?(?:let|var)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/ },
];
const constantPatterns: Record<CodeLanguage, Pattern[]> = {
  typescript: tsConstants,
  tsx: tsConstants,
  javascript: tsConstants,
  python: [{ kind: 'variable', pattern: /^(?<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)/ }],
  go: [
    { kind: 'constant', pattern: /^const\s+(?<name>[A-Za-z_]\w*)\b/ },
    { kind: 'variable', pattern: /^var\s+(?<name>[A-Za-z_]\w*)\b/ },
  ],
  rust: [
    {
      kind: 'constant',
      pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?(?<name>[A-Za-z_]\w*)\s*:/,
    },
  ],
  java: [
    {
      kind: 'constant',
      pattern:
        /^\s+(?:(?:public|private|protected)\s+)?(?:static\s+final|final\s+static)\s+[\w$.<>[\],? ]+?\s+(?<name>[A-Za-z_$][\w$]*)\s*=/,
    },
  ],
};
/** Go's `const (` or `var (` opening a group of declarations, one per line until `)`. */
const goGroupOpen = /^(?<keyword>const|var)\s*\(\s*$/;
const goGroupEntry = /^\t(?<name>[A-Za-z_]\w*)\b(?!\s*[(.])/;
/** A constant's value is looked at over at most this many lines for where its brackets close. */
const MAX_VALUE_LINES = 200;

const patterns: Record<CodeLanguage, Pattern[]> = {
  typescript: tsPatterns,
  tsx: tsPatterns,
  javascript: tsPatterns,
  python: pythonPatterns,
  go: goPatterns,
  rust: rustPatterns,
  java: javaPatterns,
};

/**
 * What a line's first character after its indentation must be for any of a language's patterns
 * (definitions and constants) to match it: a line that opens otherwise (`}`, `//`, `*`, a number, a
 * string) is passed over with one test instead of every pattern. Java has none: its method
 * pattern may start with a type's `<`, `[` or `?`, and its class pattern with `@interface`.
 */
const tsStart = /^\s*[A-Za-z_$#]/;
const wordStart = /^\s*[A-Za-z_]/;
const definitionStarts: Record<CodeLanguage, RegExp | undefined> = {
  typescript: tsStart,
  tsx: tsStart,
  javascript: tsStart,
  python: wordStart,
  go: wordStart,
  rust: wordStart,
  java: undefined,
};

/** Words that open a statement, not a method: `if (…) {` looks like a call with a body. */
const statementWords = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'new',
  'throw',
  'else',
  'do',
  'try',
  'await',
  'typeof',
  'super',
  'this',
  'synchronized',
]);

/**
 * The definitions of `text` found line by line: the core's fallback outline, for any of the
 * languages it knows, without a parser. Bodies end at the matching brace (Python: the next line
 * indented no deeper).
 */
export function lexerOutline(language: CodeLanguage, text: string): CodeDefinition[] {
  const lines = text.split('\n');
  const definitions: CodeDefinition[] = [];
  let group: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (group !== undefined) {
      group = line.startsWith(')') ? undefined : group;
      const name = group && goGroupEntry.exec(line)?.groups?.name;
      if (name) definitions.push(constantAt(lines, index, name, group === 'const' ? 'constant' : 'variable'));
      continue;
    }
    if (language === 'go') group = goGroupOpen.exec(line)?.groups?.keyword;
    const definition = group ? undefined : definitionAt(language, lines, index);
    if (definition) definitions.push(definition);
  }
  return definitions;
}

/** The definition that starts on line `index`: a function, type or class, else a constant. */
function definitionAt(
  language: CodeLanguage,
  lines: readonly string[],
  index: number,
): CodeDefinition | undefined {
  const line = lines[index]!;
  if (definitionStarts[language]?.test(line) === false) return undefined;
  for (const { kind, pattern } of patterns[language]) {
    const name = pattern.exec(line)?.groups?.name;
    if (name === undefined || (kind === 'method' && statementWords.has(name))) continue;
    if (kind === 'method' && !opensBody(lines, index)) break;
    const endLine = language === 'python' ? indentEnd(lines, index) : braceEnd(lines, index);
    return { name, kind, signature: signatureOf(line), line: index + 1, endLine };
  }
  for (const { kind, pattern } of constantPatterns[language]) {
    const name = pattern.exec(line)?.groups?.name;
    if (name !== undefined) return constantAt(lines, index, name, kind);
  }
  return undefined;
}

/** A constant whose value ends where the brackets opened on its first line close. */
function constantAt(lines: readonly string[], index: number, name: string, kind: string): CodeDefinition {
  let depth = 0;
  let end = index;
  const last = Math.min(lines.length, index + MAX_VALUE_LINES);
  for (; end < last; end++) {
    for (const character of lines[end]!) {
      if (character === '{' || character === '[' || character === '(') depth++;
      else if (character === '}' || character === ']' || character === ')') depth--;
    }
    if (depth <= 0) break;
  }
  return {
    name,
    kind,
    signature: signatureOf(lines[index]!),
    line: index + 1,
    endLine: Math.min(end, last - 1) + 1,
  };
}

/** A method-shaped line is a definition when its body opens on it or on the next lines. */
function opensBody(lines: readonly string[], index: number): boolean {
  for (let next = index; next < Math.min(lines.length, index + 4); next++) {
    const line = lines[next]!;
    if (/\{\s*$/.test(line) || /\)\s*(?::[^=]+)?\s*\{/.test(line) || /\bthrows\b[^;]*\{/.test(line))
      return true;
    if (/;\s*$/.test(line)) return false;
  }
  return false;
}

/** The declaration on one line up to its body. */
export function signatureOf(line: string): string {
  const trimmed = line.trim().replace(/\s+/g, ' ');
  const body = trimmed.search(/\s*\{\s*$/);
  const head = body > 0 ? trimmed.slice(0, body) : trimmed.replace(/:\s*$/, '');
  return head.length <= SIGNATURE_CHARS ? head : `${head.slice(0, SIGNATURE_CHARS - 1)}…`;
}

/** The line (from 1) where the braces opened on or after `start` close again. */
function braceEnd(lines: readonly string[], start: number): number {
  let depth = 0;
  let opened = false;
  const last = Math.min(lines.length, start + MAX_BODY_LINES);
  for (let index = start; index < last; index++) {
    for (const character of lines[index]!) {
      if (character === '{') {
        depth++;
        opened = true;
      } else if (character === '}') depth--;
    }
    if (opened && depth <= 0) return index + 1;
    // A declaration without a body (`type X = Y;`) ends on its first line that ends a statement.
    if (!opened && /;\s*$/.test(lines[index]!)) return index + 1;
  }
  return last;
}

/** The last line of a Python block: before the next non-blank line indented no deeper. */
function indentEnd(lines: readonly string[], start: number): number {
  const indent = indentOf(lines[start]!);
  let end = start;
  const last = Math.min(lines.length, start + MAX_BODY_LINES);
  for (let index = start + 1; index < last; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    if (indentOf(line) <= indent) break;
    end = index;
  }
  return end + 1;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
