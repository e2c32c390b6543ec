import { sliceHead } from '../_internal/text.js';
import type { CodeDefinition, CodeLanguage } from './code-outline.js';
import { constantPatterns, definitionPatterns, definitionStarts, statementWords } from './lexer-patterns.js';

/** A signature is cut to this many characters: the name and parameters, rarely more. */
export const SIGNATURE_CHARS = 160;
/** How far a definition's end is looked for, in lines (a longer body ends where the search stops). */
const MAX_BODY_LINES = 4000;

/** Go's `const (` or `var (` opening a group of declarations, one per line until `)`. */
const goGroupOpen = /^(?<keyword>const|var)\s*\(\s*$/;
const goGroupEntry = /^\t(?<name>[A-Za-z_]\w*)\b(?!\s*[(.])/;
/** A constant's value is looked at over at most this many lines for where its brackets close. */
const MAX_VALUE_LINES = 200;

/**
 * The lines of a text with what the searches for a body's end read of each, counted once: a
 * definition's end is looked for over up to {@link MAX_BODY_LINES} lines, and reading the
 * characters of each of them again for every definition made a file of unclosed or nested
 * definitions cost definitions × 4,000 lines × their length (20,000 lines of `function f() {`: 14 s).
 */
interface Lines {
  text: readonly string[];
  /** `{` less `}` on the line. */
  braces: Int32Array;
  /** 1 when the line holds a `{`. */
  opens: Uint8Array;
  /** `(` less `)` on the line. */
  parentheses: Int32Array;
  /** `{`, `[` and `(` less `}`, `]` and `)` on the line. */
  brackets: Int32Array;
  /** The line's indentation, -1 for a blank line. */
  indents: Int32Array;
  /** 1 when the line ends a statement with `;`. */
  semicolons: Uint8Array;
}

function linesOf(text: string): Lines {
  const lines = text.split('\n');
  const count = lines.length;
  const facts: Lines = {
    text: lines,
    braces: new Int32Array(count),
    opens: new Uint8Array(count),
    parentheses: new Int32Array(count),
    brackets: new Int32Array(count),
    indents: new Int32Array(count),
    semicolons: new Uint8Array(count),
  };
  for (let index = 0; index < count; index++) {
    const line = lines[index]!;
    let braces = 0;
    let parentheses = 0;
    let brackets = 0;
    for (let at = 0; at < line.length; at++) {
      switch (line.charCodeAt(at)) {
        case 0x7b: // {
          braces++;
          facts.opens[index] = 1;
          break;
        case 0x7d: // }
          braces--;
          break;
        case 0x28: // (
          parentheses++;
          break;
        case 0x29: // )
          parentheses--;
          break;
        case 0x5b: // [
          brackets++;
          break;
        case 0x5d: // ]
          brackets--;
          break;
      }
    }
    facts.braces[index] = braces;
    facts.parentheses[index] = parentheses;
    facts.brackets[index] = brackets + braces + parentheses;
    const trimmed = line.trimStart();
    facts.indents[index] = trimmed === '' ? -1 : line.length - trimmed.length;
    facts.semicolons[index] = /;\s*$/.test(line) ? 1 : 0;
  }
  return facts;
}

/**
 * The definitions of `text` found line by line: the core's fallback outline, for any of the
 * languages it knows, without a parser. Bodies end at the matching brace (Python: the next line
 * indented no deeper; Ruby: the `end` at the definition's indentation). `limit`: the first this
 * many definitions, in file order.
 */
export function lexerOutline(
  language: CodeLanguage,
  text: string,
  limit = Number.POSITIVE_INFINITY,
): CodeDefinition[] {
  const lines = linesOf(text);
  const definitions: CodeDefinition[] = [];
  let group: string | undefined;
  for (let index = 0; index < lines.text.length && definitions.length < limit; index++) {
    const line = lines.text[index]!;
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
function definitionAt(language: CodeLanguage, lines: Lines, index: number): CodeDefinition | undefined {
  const line = lines.text[index]!;
  if (!definitionStarts[language].test(line)) return undefined;
  for (const { kind, pattern, needsBody: bodyNeeded } of definitionPatterns[language]) {
    const groups = pattern.exec(line)?.groups;
    const name = groups?.name;
    const needsBody = bodyNeeded ?? kind === 'method';
    if (name === undefined || (needsBody && statementWords.has(name))) continue;
    if (needsBody && (isParameterLine(line) || !opensBody(lines.text, index))) break;
    return {
      name,
      // A pattern for several keywords names the kind by the keyword (`interface`, `enum`, `struct`).
      kind: groups?.keyword ?? kind,
      signature: signatureOf(line),
      line: index + 1,
      endLine: bodyEnd(language, lines, index),
    };
  }
  for (const { kind, pattern } of constantPatterns[language]) {
    const name = pattern.exec(line)?.groups?.name;
    if (name !== undefined) return constantAt(lines, index, name, kind);
  }
  return undefined;
}

/**
 * A parameter inside a signature written over several lines (`    const Flag (&table)[n],`): it
 * ends in `,` with its own parentheses closed. A signature's first line leaves its list open.
 */
function isParameterLine(line: string): boolean {
  if (!/,\s*$/.test(line)) return false;
  let depth = 0;
  for (const character of line) {
    if (character === '(') depth++;
    else if (character === ')') depth--;
  }
  return depth === 0;
}

/** A constant whose value ends where the brackets opened on its first line close. */
function constantAt(lines: Lines, index: number, name: string, kind: string): CodeDefinition {
  let depth = 0;
  let end = index;
  const last = Math.min(lines.text.length, index + MAX_VALUE_LINES);
  for (; end < last; end++) {
    depth += lines.brackets[end]!;
    if (depth <= 0) break;
  }
  return {
    name,
    kind,
    signature: signatureOf(lines.text[index]!),
    line: index + 1,
    endLine: Math.min(end, last - 1) + 1,
  };
}

/** A method-shaped line is a definition when its body opens on it or on the next lines. */
function opensBody(lines: readonly string[], index: number): boolean {
  for (let next = index; next < Math.min(lines.length, index + 4); next++) {
    const line = lines[next]!;
    if (
      /\{\s*$/.test(line) ||
      /\)\s*(?::[^=]+)?\s*\{/.test(line) ||
      /\bthrows\b[^;]*\{/.test(line) ||
      /\)\s*(?:(?:const|noexcept|override|final)\s*)+\{/.test(line)
    )
      return true;
    if (/;\s*$/.test(line)) return false;
  }
  return false;
}

/**
 * The line a declaration starts on, as written (indentation aside): the agent's next edit of it
 * must match it exactly, its `{` or `:` and spacing included.
 */
export function signatureOf(line: string): string {
  const head = line.trim();
  return head.length <= SIGNATURE_CHARS ? head : `${sliceHead(head, SIGNATURE_CHARS - 1)}…`;
}

/** The last line (from 1) of the definition that starts on line `start`. */
function bodyEnd(language: CodeLanguage, lines: Lines, start: number): number {
  switch (language) {
    case 'python':
      return indentEnd(lines, start);
    case 'ruby':
      return endKeywordEnd(lines, start);
    case 'kotlin':
    case 'swift':
      return braceEnd(lines, start, true);
    default:
      return braceEnd(lines, start, false);
  }
}

/**
 * The line (from 1) where the braces opened on or after `start` close again. In a language whose
 * statements end with the line (`lineEnds`: Kotlin, Swift), a declaration without braces
 * (`fun f() = x`, `interface I`) ends on the first line that closes its parentheses and goes on no
 * further.
 */
function braceEnd(lines: Lines, start: number, lineEnds: boolean): number {
  let depth = 0;
  let parentheses = 0;
  let opened = false;
  const last = Math.min(lines.text.length, start + MAX_BODY_LINES);
  for (let index = start; index < last; index++) {
    depth += lines.braces[index]!;
    parentheses += lines.parentheses[index]!;
    if (lines.opens[index] === 1) opened = true;
    if (opened && depth <= 0) return index + 1;
    // A declaration without a body (`type X = Y;`) ends on its first line that ends a statement.
    if (!opened && lines.semicolons[index] === 1) return index + 1;
    if (!opened && lineEnds && parentheses <= 0 && endsStatement(lines.text[index]!, lines.text[index + 1]))
      return index + 1;
  }
  return last;
}

/** A line that neither continues (`=`, `,`, `->`, an open bracket) nor is continued by the next (`{`, `:`, `.`). */
function endsStatement(line: string, next: string | undefined): boolean {
  return !/(?:[=,(:{]|->)\s*$/.test(line) && !/^\s*[{:.]/.test(next ?? '');
}

/** A Ruby block: its indented body and the `end` that closes it at its own indentation. */
function endKeywordEnd(lines: Lines, start: number): number {
  const end = indentEnd(lines, start);
  const indent = lines.indents[start]!;
  for (let index = end; index < lines.text.length; index++) {
    const lineIndent = lines.indents[index]!;
    if (lineIndent === -1) continue;
    return lineIndent === indent && /^\s*end\b/.test(lines.text[index]!) ? index + 1 : end;
  }
  return end;
}

/** The last line of a Python block: before the next non-blank line indented no deeper. */
function indentEnd(lines: Lines, start: number): number {
  const indent = lines.indents[start]!;
  let end = start;
  const last = Math.min(lines.text.length, start + MAX_BODY_LINES);
  for (let index = start + 1; index < last; index++) {
    const lineIndent = lines.indents[index]!;
    if (lineIndent === -1) continue;
    if (lineIndent <= indent) break;
    end = index;
  }
  return end + 1;
}
