/**
 * The files of a history as they stand now: the text of each file's last whole read or write with
 * the agent's later edits applied to it, and the texts those edits wrote. Read from the calls and
 * results alone (no file system), for putting the files back after a hard compaction.
 */
import { isPlaceholderText, shortenedMark, toolOutcome } from '../_internal/placeholder.js';
import { toolResultText } from '../_internal/text.js';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { type FileRead, fileReadOf, mayChange, shownRead } from '../working-set/file-reads.js';
import { isUnreadable } from '../working-set/outline-file.js';
import { fullerPath, latestNameOf } from '../working-set/same-file.js';
import { applyEdit, editsOf, heredocWrites, type TextEdit } from '../working-set/tool-edits.js';
import { editParts, type FilePart, withPart } from './hard-file-parts.js';

/** The latest edit texts kept per file: where the agent is working now. */
const MAX_EDITS_PER_FILE = 4;

/** One file as the history leaves it. */
export interface CurrentFile {
  path: string;
  /** Its whole text now, when the history holds it (undefined: only the edits are known). */
  text: string | undefined;
  /** While the whole text is unknown: the parts of it the agent read last, with its edits made in them. */
  parts: FilePart[];
  /** True once the agent edited or wrote it. */
  edited: boolean;
  /** The texts its latest edits wrote, oldest first. */
  edits: string[];
  /** The assistant turn that last touched it. */
  turn: number;
}

type Pending =
  | { kind: 'read'; read: FileRead }
  | { kind: 'change'; edits: TextEdit[] }
  | { kind: 'command'; command: string; writes: TextEdit[] };

/** Every file the history read or changed, least recently touched first. */
export function currentFiles(history: readonly Message[]): CurrentFile[] {
  const files = new Map<string, CurrentFile>();
  const pending = new Map<string, Pending>();
  let turn = 0;
  for (const message of history) {
    if (message.role === 'assistant') turn++;
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const call = pendingCall(block as ToolUseBlock);
        if (call) pending.set(String(block.id), call);
      } else if (block.type === 'tool_result') {
        const result = block as ToolResultBlock;
        const call = pending.get(String(result.tool_use_id));
        pending.delete(String(result.tool_use_id));
        if (call === undefined) continue;
        const text = toolResultText(result);
        // A read the ledger lists as failed (`Error: ENOENT…` unflagged) shows no text of the file.
        const failed = call.kind === 'read' ? toolOutcome(result, text).failed : result.is_error === true;
        if (!failed) record(files, call, text, turn);
      }
    }
  }
  return [...files.values()];
}

/**
 * What a call will tell about a file: a read (whole or part, by a tool or a shell command), the
 * edits it makes, or a command that may change files it names.
 */
function pendingCall(use: ToolUseBlock): Pending | undefined {
  const fact = toolCallFact(use);
  const read = fileReadOf(use, fact);
  if (read) return { kind: 'read', read };
  if (fact.kind === 'command')
    return { kind: 'command', command: fact.command, writes: heredocWrites(fact.command) };
  if (fact.kind !== 'change') return undefined;
  const path = fact.paths[0];
  const edits = editsOf(use, path);
  return edits.length > 0 ? { kind: 'change', edits } : undefined;
}

function record(files: Map<string, CurrentFile>, call: Pending, result: string, turn: number): void {
  if (call.kind === 'command') {
    // A `sed -i`, a redirect, a checkout: what was read of the files it names is no longer known.
    for (const file of files.values())
      if (mayChange(call.command, file.path)) [file.text, file.parts] = [undefined, []];
    // A file it writes whole with a heredoc is known again: the text it wrote.
    for (const write of call.writes) recordEdit(touch(files, write.path, turn), write);
    return;
  }
  if (call.kind === 'read') {
    const shown = shownRead(call.read, result);
    if (shown === undefined) return;
    const file = touch(files, call.read.path, turn);
    // A masked or cut result, or a part of the file, does not say what the whole file holds.
    const intact = !isPlaceholderText(result) && !result.includes(shortenedMark) && !isUnreadable(shown.text);
    if (!intact) return;
    if (shown.whole) {
      file.text = shown.text;
      file.parts = [];
    } else if (file.text === undefined && shown.text.trim() !== '') {
      file.parts = withPart(file.parts, { firstLine: shown.firstLine, text: shown.text });
    }
    return;
  }
  for (const edit of call.edits) {
    if (edit.movedTo === undefined) recordEdit(touch(files, edit.path, turn), edit);
    else move(files, edit.path, edit.movedTo, turn);
  }
}

/** A file renamed: its entry goes on under the new name (what held that name before is gone). */
function move(files: Map<string, CurrentFile>, path: string, movedTo: string, turn: number): void {
  const file = files.get(path) ?? files.get(latestNameOf(files.keys(), path) ?? path);
  if (file === undefined) return;
  files.delete(file.path);
  const replaced = files.get(movedTo) ?? files.get(latestNameOf(files.keys(), movedTo) ?? movedTo);
  if (replaced !== undefined) files.delete(replaced.path);
  Object.assign(file, { path: movedTo, turn, edited: true });
  files.set(movedTo, file);
}

/** The file's text with the edit made, or unknown when the text it replaced is not in it. */
function recordEdit(file: CurrentFile, edit: TextEdit): void {
  file.edited = true;
  if (edit.whole) [file.text, file.parts] = [edit.newText, []];
  else if (file.text === undefined) {
    // An edit outside the parts read leaves them as they were.
    file.parts = editParts(file.parts, edit.oldText, edit.newText) ?? file.parts;
  } else {
    // Parts are kept only while the whole text is unknown, so there are none to clear.
    file.text = applyEdit(file.text, edit)?.text;
  }
  // A whole write is all region: the file itself goes back or nothing of it.
  file.edits = edit.whole
    ? []
    : [...file.edits.filter((text) => text !== edit.newText), edit.newText].slice(-MAX_EDITS_PER_FILE);
}

/** The file's entry (under any name of it, kept under the fuller one), moved to the end (most recent). */
function touch(files: Map<string, CurrentFile>, path: string, turn: number): CurrentFile {
  const known = files.get(path) ?? files.get(latestNameOf(files.keys(), path) ?? path);
  const file = known ?? { path, text: undefined, parts: [], edited: false, edits: [], turn };
  files.delete(file.path);
  file.path = fullerPath(file.path, path);
  file.turn = turn;
  files.set(file.path, file);
  return file;
}
