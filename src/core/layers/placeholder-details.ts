/**
 * What a masked tool result said, in a few words for its placeholder, so that after micro or mid
 * the agent still sees what it found without recalling it: for a file read, the names the file
 * defines (functions and types, then constants); for a search, the files it found; for the code a
 * write or an edit sent, the names it defines. The outline the working set parsed when the result
 * came in, else the lexer's: no parser call on the masking path.
 */
import { fileName, fittingItems, PROSE_FILE_EXTENSIONS, toolResultText } from '../_internal/text.js';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { codeNames } from '../working-set/code-names.js';
import type { CodeDefinition } from '../working-set/code-outline.js';
import { functionsFirst } from '../working-set/code-outline.js';
import { fileReadOf, shownRead } from '../working-set/file-reads.js';
import { outlineFile } from '../working-set/outline-file.js';
import { searchPlaces } from '../working-set/search-hits.js';
import { searchOf } from '../working-set/tool-edits.js';

/** At most this many characters of names in one placeholder: a line, not a second file. */
const DETAILS_CHARS = 160;
/** Tools that run a subagent: their result is its report, what it found for the agent. */
const subagentTools = new Set(['task', 'agent']);
/**
 * What Claude Code appends to a subagent's report: its id to resume it and its usage. Not the
 * report's own names (`agentId`, `total_tokens`).
 */
const harnessTrailer = /agentId: \w+ \(for resuming[^)]*\)|<usage>[\s\S]*?<\/usage>/g;
/** Of a report's files, this many come before its code names. */
const REPORT_FILES = 3;
/** A file name in prose: a word with a source or config extension (`manual_commit_hooks.go`). */
const fileNamePattern = new RegExp(String.raw`\b[\w-]+\.(?:${PROSE_FILE_EXTENSIONS})\b`, 'g');

/**
 * The outline recorded for a read call's result, by tool_use id and the text it showed; undefined
 * when there is none.
 */
export type OutlineLookup = (
  toolUseId: string,
  shown: { path: string; firstLine: number; chars: number },
) => CodeDefinition[] | undefined;

/** `defines A, B (+3)` for a file read, `found in a.go, b.go (+2)` for a search, else undefined. */
export function placeholderDetails(
  toolUse: ToolUseBlock | undefined,
  result: ToolResultBlock,
  parsed?: OutlineLookup,
): string | undefined {
  if (toolUse === undefined || result.is_error === true) return undefined;
  const fact = toolCallFact(toolUse);
  const text = toolResultText(result);
  if (subagentTools.has(String(toolUse.name).toLowerCase())) return listed('names', reportNames(text));
  const search = searchOf(toolUse, fact.kind === 'command' ? fact.command : undefined);
  if (search)
    return listed(
      'found in',
      searchPlaces(text, search.file).hits.map((hit) => fileName(hit.path)),
    );
  const read = fileReadOf(toolUse, fact);
  const shown = read && shownRead(read, text);
  if (!read || !shown) return undefined;
  const recorded = parsed?.(result.tool_use_id, {
    path: read.path,
    firstLine: shown.firstLine,
    chars: shown.text.length,
  });
  return recorded ? listed('defines', names(recorded)) : defines(read.path, shown.text, shown.firstLine);
}

/** `defines A, B (+3)` for a large field of a write or an edit (its code), else undefined. */
export function inputDetails(toolUse: ToolUseBlock, value: unknown): string | undefined {
  const fact = toolCallFact(toolUse);
  const path = fact.kind === 'change' ? fact.paths[0] : undefined;
  return path === undefined || typeof value !== 'string' ? undefined : defines(path, value, 1);
}

function defines(path: string, text: string, firstLine: number): string | undefined {
  return listed('defines', names(outlineFile(path, text, undefined, firstLine) ?? []));
}

/**
 * What a subagent's report names, for its placeholder: the files, then the code names it mentions
 * most (`condenseSession`, `PostCommit`), so the agent sees where its helper looked and what it
 * found without recalling the report.
 */
function reportNames(report: string): string[] {
  const text = report.replace(harnessTrailer, '');
  const files = [...new Set([...text.matchAll(fileNamePattern)].map((match) => match[0]))];
  // A few files, then the code: a report about one folder would otherwise list only its files.
  // A file's name without its extension is no code name of its own.
  const stems = new Set(files.map((file) => file.slice(0, file.lastIndexOf('.'))));
  return [...files.slice(0, REPORT_FILES), ...codeNames(text, stems), ...files.slice(REPORT_FILES)];
}

/** The names of an outline, functions and types first. */
function names(outline: readonly CodeDefinition[]): string[] {
  return functionsFirst(outline).map((definition) => definition.name);
}

/** `label a, b (+n)`: the distinct names, first first, within {@link DETAILS_CHARS} (the first whatever its length). */
function listed(label: string, names: readonly string[]): string | undefined {
  const unique = [...new Set(names)].filter((name) => name !== '');
  const shown = fittingItems(unique, DETAILS_CHARS);
  if (shown.length === 0) return undefined;
  const more = unique.length > shown.length ? ` (+${unique.length - shown.length})` : '';
  return `${label} ${shown.join(', ')}${more}`;
}
