/**
 * Codex's `exec` tool (its default model's way of calling tools): JavaScript that calls the nested
 * tools on a global `tools` object, `await tools.exec_command({ cmd: "…" })` or
 * `await tools.apply_patch("*** Begin Patch…")`. The ledger and the working set read the nested
 * calls whose argument is written as a literal; anything computed is left alone.
 */
import type { ToolUseBlock } from '../model/messages.js';

/** A nested call: `tools.NAME(` where NAME is one the ledger reads. */
const nestedCall = /\btools\.(exec_command|apply_patch)\s*\(\s*/g;
/** `cmd:` and `workdir:` in an object literal, each key bare or quoted. */
const cmdKey = /(?:^|[{,\s])(?:cmd|"cmd"|'cmd')\s*:\s*/;
const workdirKey = /(?:^|[{,\s])(?:workdir|"workdir"|'workdir')\s*:\s*/;

/** The nested calls of a Codex `exec` call, as the tool calls they stand for; undefined for another tool. */
export function codexExecCalls(use: ToolUseBlock): ToolUseBlock[] | undefined {
  if (String(use.name) !== 'exec') return undefined;
  const input = typeof use.input === 'object' && use.input !== null ? (use.input as { input?: unknown }) : {};
  if (typeof input.input !== 'string') return undefined;
  const code = input.input;
  const calls: ToolUseBlock[] = [];
  for (const match of code.matchAll(nestedCall)) {
    const name = match[1]!;
    const at = match.index + match[0].length;
    const patch = name === 'apply_patch' ? stringAt(code, at) : undefined;
    const input = patch === undefined ? commandAt(code, at) : { input: patch };
    if (input === undefined) continue;
    calls.push({ type: 'tool_use', id: use.id, name, input });
  }
  return calls;
}

/** The arguments of `exec_command(` at `at`: a string argument, or the object's `cmd` and `workdir`. */
function commandAt(code: string, at: number): { cmd: string; workdir?: string } | undefined {
  if (code[at] !== '{') {
    const cmd = stringAt(code, at);
    return cmd === undefined ? undefined : { cmd };
  }
  // The object's text, up to the next nested call at most, is enough to find its keys.
  const window = code.slice(at, at + 4000);
  const next = window.indexOf('tools.');
  const object = next === -1 ? window : window.slice(0, next);
  const stringAfter = (key: RegExp) => {
    const found = key.exec(object);
    return found ? stringAt(code, at + found.index + found[0].length) : undefined;
  };
  const cmd = stringAfter(cmdKey);
  const workdir = stringAfter(workdirKey);
  return cmd === undefined ? undefined : { cmd, ...(workdir === undefined ? {} : { workdir }) };
}

/**
 * The string literal at `at` (`"…"`, `'…'` or a template without `${}`), its escapes read; undefined
 * when there is none or it does not end.
 */
export function stringAt(code: string, at: number): string | undefined {
  const quote = code[at];
  if (quote !== '"' && quote !== "'" && quote !== '`') return undefined;
  let text = '';
  for (let index = at + 1; index < code.length; index++) {
    const character = code[index]!;
    if (character === quote) return text;
    if (quote === '`' && character === '$' && code[index + 1] === '{') return undefined;
    if (quote !== '`' && character === '\n') return undefined;
    if (character !== '\\') {
      text += character;
      continue;
    }
    index++;
    text += escaped(code[index]);
  }
  return undefined;
}

const escapes: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  0: '\0',
};

/** What `\` then `character` stands for (a line continuation is nothing; `\u` is left as written). */
function escaped(character: string | undefined): string {
  if (character === undefined || character === '\n') return '';
  if (character === 'u' || character === 'x') return `\\${character}`;
  return escapes[character] ?? character;
}
