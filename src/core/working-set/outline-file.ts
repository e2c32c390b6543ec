import { type CodeDefinition, type CodeParser, languageOf } from './code-outline.js';
import { lexerOutline } from './lexer-outline.js';

/** Texts larger than this are not outlined (a generated file, a dump): about 40,000 lines of code. */
const MAX_OUTLINE_CHARS = 2_000_000;
/** A line longer than this is not code a person wrote (minified, a data blob). */
const MAX_LINE_CHARS = 1000;
/** More than this share of the text in over-long lines: minified or data, not outlined. */
const MAX_LONG_LINE_SHARE = 0.3;
/**
 * More than this share of the text in characters no source holds (NUL, other C0 controls but tab,
 * line breaks, form feed and escape; U+FFFD, a byte UTF-8 could not decode): binary. An executable
 * is mostly NULs, compressed data about one byte in nine a control; a source file with a NUL in a
 * string or a stray byte has a few in thousands, and is still code to outline. (git and grep call
 * a file binary at its first NUL; that is a guess for a whole file, this is for reading its text.)
 */
const MAX_BINARY_SHARE = 0.01;
/** At most this many definitions are kept of one file. */
const MAX_DEFINITIONS = 400;
const loneCarriageReturn = /\r(?!\n)/g;
const lineBreak = /[\n\r]/g;
/** See {@link MAX_BINARY_SHARE}. */
const nonSourceCharacter = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\ufffd]/g;
/** `cat -n` and Claude Code's Read: a right-aligned line number, then a tab or an arrow. */
const numberedLine = /^ *(\d+)(?:\t|→)/;
/**
 * opencode's Read: `<path>…</path>`, `<type>file</type>`, then `<content>` holding `12: text` lines
 * (earlier versions: `<file>` holding `00012| text`), then a note and the closing tag.
 */
const opencodeEnvelope = /^(?:<path>[^\n]*<\/path>\n<type>file<\/type>\n<content>|<file>)\n/;
const opencodeLine = /^(\d+)(?:: |\| )/;
/** opencode's note under a read that stopped before the end of its file. */
const opencodeCut = /\n\((?:Showing lines \d+-\d+ of \d+\.|Output capped at )/;

/** A file's text as a tool showed it: without line numbers, and the number of its first line. */
export interface ShownText {
  text: string;
  firstLine: number;
  /** The tool's note says the read stopped before the end of the file (opencode's `Showing lines`). */
  cut?: true;
}

/**
 * A line of a read's output without the number the read put before it (`   12→`, `    12\t`,
 * opencode's `12: `), for comparing a line with a file's own.
 */
export function withoutLineNumber(line: string): string {
  const match = numberedLine.exec(line) ?? opencodeLine.exec(line);
  return match ? line.slice(match[0].length) : line;
}

/**
 * The text without the line numbers a read tool put in front of each line (and where it starts);
 * a text without them is taken as it is, starting at `unnumberedFirstLine` (the line the call asked for).
 */
export function stripLineNumbers(shown: string, unnumberedFirstLine = 1): ShownText {
  const envelope = opencodeEnvelope.exec(shown);
  const body = envelope ? shown.slice(envelope[0].length) : shown;
  const pattern = envelope ? opencodeLine : numberedLine;
  const first = pattern.exec(body);
  if (!first) return { text: shown, firstLine: unnumberedFirstLine };
  const lines = body.split('\n');
  const stripped: string[] = [];
  for (const line of lines) {
    const match = pattern.exec(line);
    // A line without a number ends the file's text (a tool's own note follows).
    if (!match) {
      if (line.trim() === '') continue;
      break;
    }
    stripped.push(line.slice(match[0].length));
  }
  const shownText: ShownText = { text: stripped.join('\n'), firstLine: Number(first[1]) };
  return envelope && opencodeCut.test(body) ? { ...shownText, cut: true } : shownText;
}

/**
 * True when `text` is not source a parser should see: binary, minified, or too large. A CR alone
 * ends a line as LF does (classic Mac line endings).
 */
export function isUnreadable(text: string): boolean {
  if (text.length > MAX_OUTLINE_CHARS) return true;
  const binaryLimit = text.length * MAX_BINARY_SHARE;
  let binary = 0;
  nonSourceCharacter.lastIndex = 0;
  while (nonSourceCharacter.exec(text)) if (++binary > binaryLimit) return true;
  let long = 0;
  let start = 0;
  lineBreak.lastIndex = 0;
  while (start <= text.length) {
    const end = lineBreak.exec(text)?.index ?? text.length;
    if (end - start > MAX_LINE_CHARS) long += end - start;
    start = end + 1;
  }
  return long > text.length * MAX_LONG_LINE_SHARE;
}

/**
 * The definitions of a file's text, lines counted from `firstLine`: by the parser when it takes
 * the language, else by the lexer. Undefined for a language neither knows and for unreadable
 * text; never throws (a parser that fails is passed over for the lexer).
 */
export function outlineFile(
  path: string,
  text: string,
  parser: CodeParser | undefined,
  firstLine = 1,
): CodeDefinition[] | undefined {
  const language = languageOf(path);
  if (language === undefined || isUnreadable(text)) return undefined;
  // A CR alone breaks a line (the parsers and the lexer split at LF; CRLF they take as it is).
  text = text.replace(loneCarriageReturn, '\n');
  let definitions: CodeDefinition[] | undefined;
  try {
    definitions = parser?.outline(language, text);
  } catch {
    definitions = undefined;
  }
  if (!Array.isArray(definitions)) {
    try {
      definitions = lexerOutline(language, text, MAX_DEFINITIONS);
    } catch {
      return undefined;
    }
  }
  const shift = firstLine - 1;
  return definitions.slice(0, MAX_DEFINITIONS).map((definition) => ({
    ...definition,
    line: definition.line + shift,
    endLine: definition.endLine + shift,
  }));
}
