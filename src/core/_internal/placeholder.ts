import type { ToolResultBlock, ToolUseBlock } from '../types.js';
import { countLines, formatCount, safeJson, shortenLine, toolResultText } from './text.js';

const keyArgumentNames = [
  'path',
  'file_path',
  'filename',
  'file',
  'command',
  'cmd',
  'query',
  'pattern',
  'url',
  'id',
];

/** The argument that best says what a tool call did: its path, command or query, shortened. */
export function keyArgument(input: unknown): string {
  if (typeof input === 'string') return shortenLine(input, 60);
  if (typeof input !== 'object' || input === null) return '';
  const record = input as Record<string, unknown>;
  for (const name of keyArgumentNames) {
    const value = record[name];
    if (typeof value === 'string' && value.trim() !== '') return shortenLine(value, 60);
  }
  for (const value of Object.values(record)) {
    if (typeof value === 'string' && value.trim() !== '') return shortenLine(value, 60);
  }
  return '';
}

const exitCodePatterns = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/i,
  /\bexit(?:ed with)? (?:code|status)[: ]\s*(-?\d+)/i,
];
const errorLinePattern = /\b(error|exception|traceback|failed|failure|fatal|panic|denied|not found)\b/i;

/** The outcome of a tool result: exit code and first error line where they can be seen. */
export function toolOutcome(block: ToolResultBlock, text: string): { exitCode?: number; errorLine?: string } {
  let exitCode: number | undefined;
  for (const pattern of exitCodePatterns) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined) {
      exitCode = Number(match[1]);
      break;
    }
  }
  const failed = block.is_error === true || (exitCode !== undefined && exitCode !== 0);
  let errorLine: string | undefined;
  if (failed || errorLinePattern.test(text.slice(0, 20_000))) {
    const line = text.split('\n', 400).find((candidate) => errorLinePattern.test(candidate));
    if (line !== undefined) errorLine = shortenLine(line, 100);
    else if (failed) errorLine = shortenLine(text.split('\n', 1)[0] ?? '', 100);
  }
  return { ...(exitCode === undefined ? {} : { exitCode }), ...(errorLine ? { errorLine } : {}) };
}

/** Marker text every placeholder ends with; it names the archive item that holds the original. */
export function recallMarker(archiveId: string): string {
  return `recall ${archiveId}`;
}

/** Finds the archive id a placeholder names, or undefined for ordinary text. */
export function archiveIdInPlaceholder(text: string): string | undefined {
  if (!text.startsWith('[Previous: used ') && !text.includes('…shortened;') && !text.startsWith('[elided:')) {
    return undefined;
  }
  return /recall (r\d+)\]\s*$/.exec(text)?.[1];
}

/**
 * The one-line placeholder that replaces a tool result, e.g.
 * `[Previous: used read_file(src/app.ts) → 412 lines, 3.1k tokens; recall r17]`.
 */
export function toolResultPlaceholder(options: {
  toolUse: ToolUseBlock | undefined;
  result: ToolResultBlock;
  tokens: number;
  archiveId: string;
}): string {
  const { toolUse, result, tokens, archiveId } = options;
  const text = toolResultText(result);
  const name = toolUse ? String(toolUse.name) : 'tool';
  const argument = toolUse ? keyArgument(toolUse.input) : '';
  const outcome = toolOutcome(result, text);
  const facts: string[] = [];
  if (outcome.exitCode !== undefined) facts.push(`exit ${outcome.exitCode}`);
  else if (result.is_error === true) facts.push('error');
  facts.push(`${formatCount(countLines(text))} lines`, `${formatCount(tokens)} tokens`);
  const error = outcome.errorLine ? `; ${JSON.stringify(outcome.errorLine)}` : '';
  return `[Previous: used ${name}(${argument}) → ${facts.join(', ')}${error}; ${recallMarker(archiveId)}]`;
}

/** What a shortened block's trailing note says. */
export function shortenedNote(archiveId: string, tokens: number): string {
  return ` […shortened; ${formatCount(tokens)} tokens in full; ${recallMarker(archiveId)}]`;
}

/** The text that stands in for a large elided tool input field. */
export function elidedInputText(value: unknown, tokens: number, archiveId: string): string {
  const size = typeof value === 'string' ? `${formatCount(countLines(value))} lines, ` : '';
  return `[elided: ${size}${formatCount(tokens)} tokens; ${recallMarker(archiveId)}]`;
}

export { safeJson };
