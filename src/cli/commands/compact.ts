/**
 * `agent-compact compact FILE [--mid N] [--hard N] [--window N] [--summarizer SPEC] [--base-url URL]
 * [--archive DIR] [--force mid|hard] [--tokenizer T] [--format F] [-o OUT] [--json]`
 *
 * Runs one `maybeCompact` over a conversation file (or `compactRequest` over a whole request body)
 * and writes the result in the input's format.
 */
import { realpath, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type {
  Compactor,
  CompactorOptions,
  CompactResult,
  MaybeCompactOptions,
  ParsedConversation,
} from 'agent-compact';
import { assertValidMessages, createCompactor, serializeConversation } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';
import { createMemoizedCounter } from 'agent-compact/counters';
import { readRequestConversation } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import { type CliCommand, CliError, UsageError } from '../cli-io.js';
import {
  type CliTokenizer,
  createCliCounter,
  formatOption,
  parseCommandArgs,
  positiveIntegerOption,
  singleFile,
  tokenizerOption,
} from '../command-args.js';
import { fileProgress } from '../progress.js';
import { readConversationStreamed } from '../read-conversation.js';
import { assertValidRequest, type RequestFile, readRequestFile, serializeRequest } from '../read-request.js';
import { createSummaryModelFromSpec } from '../summarizer-from-spec.js';

const help = `Usage: agent-compact compact FILE [options]

Compacts a conversation once, as an agent loop would before its next model call, and writes the
result in the input's format (to OUT, or to stdout without -o and --json). FILE may also be a whole
request body as an agent sends it (model, tools, system, messages or input …): then the whole
request is written back with only its conversation changed.

Options:
  --mid N              mid threshold in tokens (default 50000, or 60% of --window less the
                       8192 kept for the answer)
  --hard N             hard threshold in tokens (default 80000, or 85% of --window less the
                       8192 kept for the answer)
  --window N           the model's context window; thresholds become fractions of it
  --summarizer SPEC    extractive (default, offline), anthropic:MODEL, openai:MODEL
                       openai-responses:MODEL or gemini:MODEL
  --base-url URL       base URL for the summarizer's API (OpenAI-compatible servers, proxies)
  --archive DIR        keep what leaves the context in DIR/<name>.jsonl (default: OUT.archive/, or
                       NAME.archive/ in the current folder without -o or with -o /dev/stdout, NAME
                       the file's base name);
                       the line on stderr says where; agent-compact recall ID --archive DIR reads it;
                       refused when DIR/<name>.jsonl is FILE or OUT itself
  --force LAYER        run mid or hard even below its threshold
  --tokenizer T        o200k (default), cl100k or heuristic
  --format F           read the file as anthropic, openai, responses or gemini instead of detecting it
  -o, --output OUT     write the compacted conversation to OUT
  --json               print { "layer", "tokensBefore", "tokensAfter", "archived", ... }
  -h, --help           show this help

Exit codes: 0 done, 1 invalid conversation, 2 unreadable input, an OUT that cannot be written, bad
arguments, or a summarizer named with --summarizer that failed (unreachable, rejected the request,
answered nothing usable).
`;

/** The `compact` command. */
export const compactCommand: CliCommand = async (args, io) => {
  const options = parseCompactArgs(args);
  if (options.help) {
    io.stdout(help);
    return 0;
  }
  if (options.output) await assertOutputFolder(options.output, io.cwd);
  const request = await readRequestFile(options.file, io, { format: options.format });
  const progress = await fileProgress(io, 'compact', options.file);
  const parsed = request
    ? undefined
    : await readConversationStreamed(options.file, io, { format: options.format }, (_, bytesRead) =>
        progress.update(bytesRead),
      );
  progress.end();
  if (request) assertValidRequest(request, options.file);
  // Responses input is checked with the Responses rules, with paths into its items.
  else if (parsed!.responsesInput) assertValidMessages(parsed!.responsesInput, { format: parsed!.format });
  else assertValidMessages(parsed!.conversation.messages, { system: parsed!.conversation.system });
  const summarizer = options.summarizer
    ? await createSummaryModelFromSpec(options.summarizer, {
        env: io.env,
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      })
    : undefined;
  // A model named on the command line that fails is an error here, not a silent fallback.
  let modelFailure: string | undefined;
  const archive = options.archive ?? (await defaultArchive(options, io.cwd));
  const sessionId = sessionIdFor(options.file);
  await assertArchiveApart(resolve(io.cwd, archive, `${sessionId}.jsonl`), [
    resolve(io.cwd, options.file),
    ...(options.output ? [resolve(io.cwd, options.output)] : []),
  ]);
  const compactorOptions: CompactorOptions = {
    // One count per text however large the file: the compactor's own cache holds a few thousand
    // texts, so on a long session the index, the masks and the summary would each count it again.
    counter: createMemoizedCounter(await createCliCounter(options.tokenizer), {
      maxEntries: Number.POSITIVE_INFINITY,
    }),
    sessionId,
    ...(options.mid !== undefined || options.hard !== undefined
      ? {
          thresholds: {
            ...(options.mid === undefined ? {} : { mid: options.mid }),
            ...(options.hard === undefined ? {} : { hard: options.hard }),
          },
        }
      : {}),
    ...(options.window === undefined ? {} : { contextWindow: options.window }),
    ...(summarizer ? { summarizer } : {}),
    archive: createFileArchiveStore({ directory: resolve(io.cwd, archive) }),
    onEvent: (event) => {
      if (event.type === 'fallback-used') modelFailure ??= event.reason;
    },
  };
  const compactor = createCompactor(compactorOptions);
  const messageCount = request ? request.conversation.messages.length : parsed!.conversation.messages.length;
  progress.note(`compacting ${messageCount.toLocaleString('en-US')} messages`);
  const force = options.force ? { force: options.force } : {};
  const run = request
    ? await compactRequestFile(compactor, request, force)
    : await compactConversation(compactor, parsed!, force);
  if (summarizer && modelFailure) throw new CliError(modelFailure, 2);
  if (options.output) {
    try {
      await writeFile(resolve(io.cwd, options.output), run.text);
    } catch (error) {
      throw new CliError(
        `cannot write ${options.output}: ${error instanceof Error ? error.message : String(error)}`,
        2,
      );
    }
  }
  const { result } = run;
  // A layer that ran names archive ids even when it stored nothing new (a second run on the same
  // file finds its items there), so the output says where they are.
  const namesArchive = result.layer !== 'none' || result.archived.length > 0;
  const summary = {
    layer: result.layer,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    archived: result.archived,
    messagesBefore: run.messagesBefore,
    messagesAfter: run.messagesAfter,
    thresholds: compactor.thresholds,
    format: run.format,
    ...(options.output ? { output: options.output } : {}),
    ...(namesArchive ? { archive } : {}),
  };
  if (options.json) {
    io.stdout(`${JSON.stringify(summary)}\n`);
  } else {
    if (!options.output) io.stdout(run.text);
    io.stderr(
      `${result.layer}: ${result.tokensBefore} → ${result.tokensAfter} tokens, ${run.messagesBefore} → ` +
        `${run.messagesAfter} messages, ${result.archived.length} item(s) archived` +
        `${namesArchive || options.archive ? ` in ${archive}` : ''}\n`,
    );
  }
  return 0;
};

/** What one compaction of a file produced. */
interface CompactRun {
  /** The output file's text, in the input's format and layout. */
  text: string;
  result: Pick<CompactResult, 'layer' | 'tokensBefore' | 'tokensAfter' | 'archived'>;
  messagesBefore: number;
  messagesAfter: number;
  format: string;
}

type ForceOption = Pick<MaybeCompactOptions, 'force'>;

async function compactConversation(
  compactor: Compactor,
  parsed: ParsedConversation,
  force: ForceOption,
): Promise<CompactRun> {
  const { conversation } = parsed;
  const result = await compactor.maybeCompact(conversation.messages, {
    ...(conversation.system === undefined ? {} : { system: conversation.system }),
    ...force,
  });
  const text = serializeConversation({ ...conversation, messages: result.messages }, parsed.format, {
    jsonl: parsed.layout === 'jsonl',
    compactedFrom: conversation.messages,
    ...(parsed.systemRole ? { systemRole: parsed.systemRole } : {}),
  });
  return {
    text,
    result,
    messagesBefore: conversation.messages.length,
    messagesAfter: result.messages.length,
    format: parsed.format,
  };
}

/** A whole request goes back whole: every field but the conversation as it came. */
async function compactRequestFile(
  compactor: Compactor,
  request: RequestFile,
  force: ForceOption,
): Promise<CompactRun> {
  const result = await compactor.compactRequest(request.body, { format: request.format, ...force });
  const after =
    result.body === request.body
      ? request.conversation
      : readRequestConversation(result.body, request.format);
  return {
    text: serializeRequest(result.body, request.oneLine),
    result,
    messagesBefore: request.conversation.messages.length,
    messagesAfter: after.messages.length,
    format: request.format,
  };
}

interface CompactArgs {
  help: boolean;
  file: string;
  mid?: number;
  hard?: number;
  window?: number;
  summarizer?: string;
  baseURL?: string;
  archive?: string;
  force?: 'mid' | 'hard';
  tokenizer: CliTokenizer;
  format?: WireFormat;
  output?: string;
  json: boolean;
}

function parseCompactArgs(args: string[]): CompactArgs {
  const { values, positionals } = parseCommandArgs(args, {
    mid: { type: 'string' },
    hard: { type: 'string' },
    window: { type: 'string' },
    summarizer: { type: 'string' },
    'base-url': { type: 'string' },
    archive: { type: 'string' },
    force: { type: 'string' },
    tokenizer: { type: 'string' },
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { help: true, file: '', tokenizer: 'o200k', json: false };
  const force = values.force;
  if (force !== undefined && force !== 'mid' && force !== 'hard') {
    throw new UsageError(`--force must be "mid" or "hard", got "${force}"`);
  }
  const parsed: CompactArgs = {
    help: false,
    file: singleFile(positionals),
    tokenizer: tokenizerOption(values.tokenizer),
    json: values.json === true,
  };
  const format = formatOption(values.format);
  for (const name of ['mid', 'hard', 'window'] as const) {
    const number = positiveIntegerOption(name, values[name]);
    if (number !== undefined) parsed[name] = number;
  }
  if (values.summarizer !== undefined) parsed.summarizer = values.summarizer;
  if (values['base-url'] !== undefined) parsed.baseURL = values['base-url'];
  if (values.archive !== undefined) parsed.archive = values.archive;
  if (values.output !== undefined) parsed.output = values.output;
  if (format) parsed.format = format;
  if (force) parsed.force = force;
  return parsed;
}

/**
 * Where placeholders' archive ids are kept without `--archive`, somewhere they can be recalled
 * from: beside the file `-o` writes, else in the current folder, never beside an input that may lie
 * elsewhere. `-o /dev/stdout`, a pipe or another device counts as no file: no `/dev/stdout.archive`.
 */
async function defaultArchive(options: { file: string; output?: string }, cwd: string): Promise<string> {
  const { output } = options;
  if (output !== undefined && !(await isDevice(resolve(cwd, output)))) return `${output}.archive`;
  return `${basename(options.file)}.archive`;
}

/** Whether `path` exists and is neither a file nor a folder (a device, a pipe, a socket). */
function isDevice(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => !found.isFile() && !found.isDirectory(),
    () => false,
  );
}

/**
 * Refuses an OUT under a file before any work: `-o notes.txt/out.jsonl` would otherwise compact and
 * fill the archive only to fail at the write, or fail reading the archive beside OUT first and
 * report a read for what is a write. A folder that does not exist yet is fine (the archive beside
 * OUT makes it; otherwise the write says so).
 */
async function assertOutputFolder(output: string, cwd: string): Promise<void> {
  for (let folder = dirname(output); ; folder = dirname(folder)) {
    const found = await stat(resolve(cwd, folder)).catch(() => undefined);
    if (found?.isDirectory()) return;
    if (found) {
      const what = found.isFile() ? 'a file, not a folder' : 'not a folder';
      throw new CliError(`cannot write ${output}: ${folder} is ${what}`, 2);
    }
    if (dirname(folder) === folder) return;
  }
}

/**
 * Refuses an archive whose session file is the input or the output: `compact session.jsonl
 * --archive .` would append the archive's items to the input itself, and `compact a.json -o a.jsonl
 * --archive .` would write the output over the archive.
 */
async function assertArchiveApart(archiveFile: string, files: readonly string[]): Promise<void> {
  const archiveAt = await canonicalPath(archiveFile);
  for (const file of files) {
    if ((await canonicalPath(file)) !== archiveAt) continue;
    throw new CliError(
      `the archive would be written into ${file} itself (${archiveFile}); pass another --archive folder`,
      2,
    );
  }
}

/** The path with its folder's links resolved (the file itself may not exist yet). */
async function canonicalPath(path: string): Promise<string> {
  const folder = await realpath(dirname(path)).catch(() => dirname(path));
  const file = join(folder, basename(path));
  return realpath(file).catch(() => file);
}

/** The archive file name for an input file: its base name with unsafe characters replaced. */
function sessionIdFor(file: string): string {
  const name = basename(file)
    .replace(/\.(jsonl?|traj(\.json)?)$/i, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '');
  return (name || 'session').slice(0, 128);
}
