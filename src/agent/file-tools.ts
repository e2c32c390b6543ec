import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolOutcome } from './tool-outcome.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** Options shared by the file tools. */
export interface FileToolOptions {
  /** The workspace root; every path is confined to it. */
  workspace: string;
}

/** Options of {@link readFileTool}. */
export interface ReadFileToolOptions extends FileToolOptions {
  /**
   * Files larger than this many bytes are cut (the model is told, and can ask for fewer lines).
   * @default 262144
   */
  maxBytes?: number;
}

/**
 * The `read_file {path, limit?}` tool: the file's text, or its first `limit` lines.
 *
 * @example
 * const outcome = await readFileTool({ path: 'src/app.ts', limit: 50 }, { workspace: process.cwd() });
 */
export async function readFileTool(
  input: unknown,
  { workspace, maxBytes = 256 * 1024 }: ReadFileToolOptions,
): Promise<ToolOutcome> {
  const fields = readFields(input, { path: 'string', limit: 'optional-integer' });
  if (typeof fields === 'string') return failure(`read_file: ${fields}`);
  const resolved = await resolveWorkspacePath({ workspace, requestedPath: fields.path as string });
  if (!resolved.ok) return failure(`read_file: ${resolved.reason}`);
  try {
    const info = await stat(resolved.absolutePath);
    if (info.isDirectory())
      return failure(`read_file: "${fields.path}" is a directory; use bash ls to list it`);
    const text = await readFile(resolved.absolutePath, 'utf8');
    const limit = fields.limit as number | undefined;
    let result = text;
    if (limit !== undefined) {
      const lines = text.split('\n');
      if (lines.length > limit) {
        result = `${lines.slice(0, limit).join('\n')}\n... (${lines.length - limit} more lines)`;
      }
    }
    if (Buffer.byteLength(result) > maxBytes) {
      const kept = Buffer.from(result).subarray(0, maxBytes).toString('utf8');
      result = `${kept}\n... (file cut at ${maxBytes} of ${Buffer.byteLength(text)} bytes; pass limit to read fewer lines)`;
    }
    return { content: result, isError: false };
  } catch (error) {
    return failure(`read_file: cannot read "${fields.path}": ${describeFileError(error)}`);
  }
}

/**
 * The `write_file {path, content}` tool: creates or replaces a file, creating parent directories.
 *
 * @example
 * await writeFileTool({ path: 'notes.md', content: '# Notes\n' }, { workspace: process.cwd() });
 */
export async function writeFileTool(input: unknown, { workspace }: FileToolOptions): Promise<ToolOutcome> {
  const fields = readFields(input, { path: 'string', content: 'string' });
  if (typeof fields === 'string') return failure(`write_file: ${fields}`);
  const resolved = await resolveWorkspacePath({ workspace, requestedPath: fields.path as string });
  if (!resolved.ok) return failure(`write_file: ${resolved.reason}`);
  try {
    await mkdir(path.dirname(resolved.absolutePath), { recursive: true });
    const content = fields.content as string;
    await writeFile(resolved.absolutePath, content, 'utf8');
    return {
      content: `wrote ${Buffer.byteLength(content)} bytes to ${resolved.relativePath}`,
      isError: false,
    };
  } catch (error) {
    return failure(`write_file: cannot write "${fields.path}": ${describeFileError(error)}`);
  }
}

/**
 * The `edit_file {path, old_text, new_text}` tool: replaces one exact occurrence of `old_text`.
 * Refuses when `old_text` is missing or occurs more than once, so an edit never lands in the
 * wrong place.
 *
 * @example
 * await editFileTool({ path: 'a.ts', old_text: 'let x = 1', new_text: 'let x = 2' }, { workspace });
 */
export async function editFileTool(input: unknown, { workspace }: FileToolOptions): Promise<ToolOutcome> {
  const fields = readFields(input, { path: 'string', old_text: 'string', new_text: 'string' });
  if (typeof fields === 'string') return failure(`edit_file: ${fields}`);
  const oldText = fields.old_text as string;
  const newText = fields.new_text as string;
  if (oldText === '') return failure('edit_file: old_text is empty; use write_file to create a file');
  const resolved = await resolveWorkspacePath({ workspace, requestedPath: fields.path as string });
  if (!resolved.ok) return failure(`edit_file: ${resolved.reason}`);
  let text: string;
  try {
    text = await readFile(resolved.absolutePath, 'utf8');
  } catch (error) {
    return failure(`edit_file: cannot read "${fields.path}": ${describeFileError(error)}`);
  }
  const first = text.indexOf(oldText);
  if (first === -1) {
    return failure(
      `edit_file: old_text not found in ${resolved.relativePath}; read the file and copy the text exactly`,
    );
  }
  const occurrences = countOccurrences(text, oldText);
  if (occurrences > 1) {
    return failure(
      `edit_file: old_text occurs ${occurrences} times in ${resolved.relativePath}; include more surrounding lines so it matches once`,
    );
  }
  // Slicing instead of String.replace keeps `$&`-style patterns in new_text literal.
  const edited = text.slice(0, first) + newText + text.slice(first + oldText.length);
  try {
    await writeFile(resolved.absolutePath, edited, 'utf8');
  } catch (error) {
    return failure(`edit_file: cannot write "${fields.path}": ${describeFileError(error)}`);
  }
  const line = text.slice(0, first).split('\n').length;
  return { content: `edited ${resolved.relativePath} at line ${line}`, isError: false };
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + 1)) count += 1;
  return count;
}

type FieldKind = 'string' | 'optional-integer';

/** Checks the model's input; returns the fields or a sentence saying what is wrong. */
function readFields(input: unknown, kinds: Record<string, FieldKind>): Record<string, unknown> | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return `input must be an object with ${Object.keys(kinds).join(', ')}`;
  }
  const record = { ...(input as Record<string, unknown>) };
  for (const [name, kind] of Object.entries(kinds)) {
    const value = record[name];
    switch (kind) {
      case 'string':
        if (typeof value !== 'string') return `"${name}" must be a string`;
        break;
      case 'optional-integer':
        if (value !== undefined && value !== null && !(Number.isInteger(value) && (value as number) > 0)) {
          return `"${name}" must be a positive integer`;
        }
        if (value === null) record[name] = undefined;
        break;
      default: {
        const unreachable: never = kind;
        throw new Error(`unknown field kind ${String(unreachable)}`);
      }
    }
  }
  return record;
}

function failure(content: string): ToolOutcome {
  return { content, isError: true };
}

function describeFileError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a parent is not a directory';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
