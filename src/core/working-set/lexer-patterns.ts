import type { CodeLanguage } from './code-outline.js';

/**
 * The lexer's patterns, per language: what a definition and a top-level constant look like on the
 * line that opens it. `lexer-outline.ts` runs them.
 */

export interface Pattern {
  /** What a definition it matches is; a `keyword` group, when the pattern has one, names it instead. */
  kind: string;
  pattern: RegExp;
  /**
   * Whether a line it matches is a definition only when a body opens on it or just below (else a
   * call, a prototype or a statement). Methods by default.
   */
  needsBody?: boolean;
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
    pattern:
      /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[\w:<>,](?:[\w:<>, ]*[\w:<>,])?\s+for\s+)?(?<name>[A-Za-z_][\w:]*)/,
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
      /^\s+(?:(?:public|private|protected|static|final|abstract|synchronized|native|default)\s+)*(?:<[^>]*>\s+)?(?:[\w$.<>[\],?](?:[\w$.<>[\],? ]*[\w$.<>[\],?])?\s+)?(?<name>[A-Za-z_$][\w$]*)\s*\([^;]*$/,
  },
];

/** A C or C++ declaration's return type, qualifiers included: one or more words before the name. */
const cType = String.raw`(?:[A-Za-z_][\w:<>,]*(?:\s+|\s*[*&]+\s+)[*&]*)+`;
const cPatterns: Pattern[] = [
  { kind: 'struct', pattern: /^\s*(?:typedef\s+)?struct\s+(?<name>[A-Za-z_]\w*)\s*(?:\{|$)/ },
  { kind: 'union', pattern: /^\s*(?:typedef\s+)?union\s+(?<name>[A-Za-z_]\w*)\s*(?:\{|$)/ },
  {
    kind: 'enum',
    pattern: /^\s*(?:typedef\s+)?enum\s+(?:class\s+|struct\s+)?(?<name>[A-Za-z_]\w*)\s*(?::[^{;]*)?(?:\{|$)/,
  },
  // A function at the left margin (C has no methods; an indented `name(…) {` is a statement or macro).
  {
    kind: 'function',
    pattern: new RegExp(String.raw`^${cType}(?<name>[A-Za-z_]\w*)\s*\([^;]*$`),
    needsBody: true,
  },
];
const cppPatterns: Pattern[] = [
  {
    kind: 'class',
    pattern:
      /^\s*(?:template\s*<[^>]*>\s*)?(?<keyword>class|struct)\s+(?:\w+\s+)?(?<name>[A-Za-z_]\w*)\s*(?:final\s*)?(?::[^;]*)?(?:\{|$)/,
  },
  ...cPatterns.slice(1, 3),
  // `Type::name(…)` at the left margin: a constructor, destructor or method defined out of its class.
  { kind: 'method', pattern: /^(?:[A-Za-z_][\w<>,]*::)+(?<name>~?[A-Za-z_]\w*)\s*\([^;]*$/, needsBody: true },
  {
    kind: 'function',
    pattern: new RegExp(
      String.raw`^\s*(?:template\s*<[^>]*>\s*)?${cType}(?:[A-Za-z_][\w<>,]*::)*(?<name>~?[A-Za-z_]\w*)\s*\((?:[^;]*$|[^;{]*\{)`,
    ),
    needsBody: true,
  },
];
const csharpModifiers = String.raw`(?:(?:public|private|protected|internal|static|abstract|sealed|partial|readonly|virtual|override|async|extern|unsafe|new|ref|file)\s+)*`;
const csharpPatterns: Pattern[] = [
  {
    kind: 'class',
    pattern: new RegExp(
      String.raw`^\s*${csharpModifiers}(?<keyword>class|interface|struct|enum|record)(?:\s+(?:class|struct))?\s+(?<name>[A-Za-z_]\w*)`,
    ),
  },
  {
    kind: 'method',
    pattern: new RegExp(
      String.raw`^\s+${csharpModifiers}(?:[\w.<>[\],?]+\s+)?(?<name>[A-Za-z_]\w*)\s*(?:<[^>]*>)?\s*\([^;]*$`,
    ),
  },
];
const rubyPatterns: Pattern[] = [
  { kind: 'method', pattern: /^\s*def\s+(?:self\.)?(?<name>[A-Za-z_]\w*[?!=]?)/, needsBody: false },
  { kind: 'class', pattern: /^\s*class\s+(?<name>[A-Z]\w*(?:::[A-Z]\w*)*)/ },
  { kind: 'module', pattern: /^\s*module\s+(?<name>[A-Z]\w*(?:::[A-Z]\w*)*)/ },
];
const phpPatterns: Pattern[] = [
  {
    kind: 'function',
    pattern:
      /^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?(?<name>[A-Za-z_]\w*)\s*\(/,
  },
  {
    kind: 'class',
    pattern:
      /^\s*(?:(?:abstract|final|readonly)\s+)*(?<keyword>class|interface|trait|enum)\s+(?<name>[A-Za-z_]\w*)/,
  },
];
const kotlinPatterns: Pattern[] = [
  {
    kind: 'function',
    pattern:
      /^\s*(?:(?:public|private|protected|internal|open|override|abstract|final|suspend|inline|operator|infix|tailrec|external|expect|actual)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.<>?]+\.)?(?<name>[A-Za-z_]\w*)\s*\(/,
  },
  {
    kind: 'class',
    pattern:
      /^\s*(?:(?:public|private|protected|internal|open|abstract|final|sealed|data|enum|annotation|inner|value|inline|expect|actual|fun)\s+)*(?<keyword>class|interface|object)\s+(?<name>[A-Za-z_]\w*)/,
  },
];
const swiftModifiers = String.raw`(?:(?:public|private|fileprivate|internal|open|static|class|final|override|mutating|nonmutating|convenience|required|dynamic|indirect|@\w+(?:\([^)]*\))?)\s+)*`;
const swiftPatterns: Pattern[] = [
  {
    kind: 'function',
    pattern: new RegExp(String.raw`^\s*${swiftModifiers}func\s+(?<name>[A-Za-z_]\w*)\s*[<(]`),
  },
  { kind: 'constructor', pattern: new RegExp(String.raw`^\s*${swiftModifiers}(?<name>init)[?!]?\s*[<(]`) },
  {
    kind: 'class',
    pattern: new RegExp(
      String.raw`^\s*${swiftModifiers}(?<keyword>class|struct|enum|protocol|extension|actor)\s+(?<name>[A-Za-z_]\w*)`,
    ),
  },
];

// Top-level constants and variables (a file name, a limit, a flag: names the agent reaches for
// again), tried when no definition matched. Go's grouped `const (`…`)` entries are found apart.
const tsConstants: Pattern[] = [
  { kind: 'constant', pattern: /^(?:export\s+)?const\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/ },
  { kind: 'variable', pattern: /^(?:export\s+)?(?:let|var)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/ },
];
export const constantPatterns: Record<CodeLanguage, Pattern[]> = {
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
        /^\s+(?:(?:public|private|protected)\s+)?(?:static\s+final|final\s+static)\s+[\w$.<>[\],?](?:[\w$.<>[\],? ]*?[\w$.<>[\],?])?\s+(?<name>[A-Za-z_$][\w$]*)\s*=/,
    },
  ],
  c: cConstants(),
  cpp: cConstants(),
  csharp: [
    {
      kind: 'constant',
      pattern: new RegExp(
        String.raw`^\s+${csharpModifiers}const\s+[\w.<>[\],?]+\s+(?<name>[A-Za-z_]\w*)\s*=`,
      ),
    },
  ],
  ruby: [{ kind: 'constant', pattern: /^\s*(?<name>[A-Z][A-Z0-9_]+)\s*=(?!=)/ }],
  php: [
    {
      kind: 'constant',
      pattern:
        /^\s*(?:(?:public|private|protected|final)\s+)*const\s+(?:[\w\\]+\s+)?(?<name>[A-Za-z_]\w*)\s*=/,
    },
  ],
  kotlin: [
    {
      kind: 'constant',
      pattern: /^\s*(?:(?:public|private|protected|internal)\s+)?const\s+val\s+(?<name>[A-Za-z_]\w*)/,
    },
    { kind: 'variable', pattern: /^(?:(?:public|private|internal)\s+)?(?:val|var)\s+(?<name>[A-Za-z_]\w*)/ },
  ],
  swift: [
    {
      kind: 'variable',
      pattern: /^(?:(?:public|private|fileprivate|internal)\s+)?(?:let|var)\s+(?<name>[A-Za-z_]\w*)/,
    },
  ],
};

/** C and C++: a `#define` and a `typedef`'s new name, at the left margin. */
function cConstants(): Pattern[] {
  return [
    { kind: 'constant', pattern: /^#\s*define\s+(?<name>[A-Za-z_]\w*)/ },
    { kind: 'type', pattern: /^typedef\s+[^;{(]*?\b(?<name>[A-Za-z_]\w*)\s*;/ },
  ];
}

export const definitionPatterns: Record<CodeLanguage, Pattern[]> = {
  typescript: tsPatterns,
  tsx: tsPatterns,
  javascript: tsPatterns,
  python: pythonPatterns,
  go: goPatterns,
  rust: rustPatterns,
  java: javaPatterns,
  c: cPatterns,
  cpp: cppPatterns,
  csharp: csharpPatterns,
  ruby: rubyPatterns,
  php: phpPatterns,
  kotlin: kotlinPatterns,
  swift: swiftPatterns,
};

/**
 * What a line's first character after its indentation must be for any of a language's patterns
 * (definitions and constants) to match it: a line that opens otherwise (`}`, `//`, `*`, a number, a
 * string) is passed over with one test instead of every pattern (and a blank line too: Java's
 * method pattern takes quadratic time on a long run of spaces). A Java method may start with a
 * type's `<`, `[` or `?`, and its class with `@interface`.
 */
const tsStart = /^\s*[A-Za-z_$#]/;
const wordStart = /^\s*[A-Za-z_]/;
export const definitionStarts: Record<CodeLanguage, RegExp> = {
  typescript: tsStart,
  tsx: tsStart,
  javascript: tsStart,
  python: wordStart,
  go: wordStart,
  rust: wordStart,
  java: /^\s*[A-Za-z_$@<[?]/,
  c: /^\s*[A-Za-z_#]/,
  cpp: /^\s*[A-Za-z_#~]/,
  csharp: wordStart,
  ruby: wordStart,
  php: wordStart,
  kotlin: wordStart,
  swift: /^\s*[A-Za-z_@]/,
};

/** Words that open a statement, not a method: `if (…) {` looks like a call with a body. */
export const statementWords = new Set([
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
  'case',
  'delete',
  'sizeof',
  'defined',
  'foreach',
  'lock',
  'using',
  'fixed',
  'checked',
  'unchecked',
  'when',
]);
