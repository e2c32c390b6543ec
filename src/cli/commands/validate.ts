/**
 * `agent-compact validate FILE [--json] [--format anthropic|openai|responses|gemini] [--fix -o OUT]`
 *
 * Exit 0 and `valid` when the provider would accept the conversation; exit 1 and one line per
 * problem (`path: message`) when not; exit 2 when the file cannot be read. `--fix -o OUT` writes the
 * repaired conversation in the input's format and layout, lists each change, and exits 0.
 */

import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ParsedConversation, ValidationProblem } from 'agent-compact';
import {
  CompactError,
  parseConversation,
  type RepairChange,
  type RepairOptions,
  repairMessages,
  serializeConversation,
} from 'agent-compact';
import { dialects, readRequestConversation, withMessages } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import { type CliCommand, CliError, type CliIO, UsageError } from '../cli-io.js';
import { formatOption, parseCommandArgs, singleFile } from '../command-args.js';
import { fileProgress } from '../progress.js';
import { describeFileError, readConversationStreamed } from '../read-conversation.js';
import { type RequestFile, readRequestFile, requestProblems, serializeRequest } from '../read-request.js';

const help = `Usage: agent-compact validate FILE [--json] [--format anthropic|openai|responses|gemini] [--fix -o OUT]

Checks a conversation (JSON object, JSON array of messages or JSONL; Anthropic, OpenAI Chat,
OpenAI Responses { "instructions"?, "input": [items] } or Gemini { "systemInstruction"?,
"contents": [...] } shape), or the conversation of a whole
request body as an agent sends it, against the rules the provider enforces. --fix on a whole
request writes the whole request back.

Options:
  --json             print { "valid": bool, "problems": [{ path, message, rule }] }
  --format FORMAT    read the file as anthropic, openai, responses or gemini instead of detecting it
  --fix              repair the conversation (needs -o)
  -o, --output OUT   where --fix writes the repaired conversation (same format as FILE)
  -h, --help         show this help

Exit codes: 0 valid (or repaired), 1 invalid, 2 unreadable input or bad arguments.
`;

/** The `validate` command. */
export const validateCommand: CliCommand = async (args, io) => {
  const options = parseValidateArgs(args);
  if (options.help) {
    io.stdout(help);
    return 0;
  }
  const request = await readRequestFile(options.file, io, { format: options.format });
  if (request) {
    const problems = requestProblems(request);
    return options.fix ? fixRequest(io, request, problems, options) : report(io, problems, options.json);
  }
  const progress = await fileProgress(io, 'validate', options.file);
  const parsed = await readConversationStreamed(
    options.file,
    io,
    { format: options.format },
    (_, bytesRead) => progress.update(bytesRead),
  );
  progress.end();
  progress.note(`checking ${parsed.conversation.messages.length.toLocaleString('en-US')} messages`);
  const problems = problemsOf(parsed);
  if (!options.fix) return report(io, problems, options.json);
  return fix(io, parsed, problems, options);
};

interface ValidateArgs {
  help: boolean;
  file: string;
  json: boolean;
  format: WireFormat | undefined;
  fix: boolean;
  output: string | undefined;
}

function parseValidateArgs(args: string[]): ValidateArgs {
  const { values, positionals } = parseCommandArgs(args, {
    json: { type: 'boolean' },
    format: { type: 'string' },
    fix: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  const help = values.help === true;
  if (help) return { help, file: '', json: false, format: undefined, fix: false, output: undefined };
  const file = singleFile(positionals);
  const format = formatOption(values.format);
  if (values.fix && values.output === undefined) throw new UsageError('--fix needs -o OUT');
  if (!values.fix && values.output !== undefined) throw new UsageError('-o is only used with --fix');
  return { help, file, json: values.json === true, format, fix: values.fix === true, output: values.output };
}

/** Problems in the input's own terms: OpenAI input is checked with the OpenAI rules. */
function problemsOf(parsed: ParsedConversation): ValidationProblem[] {
  return dialects[parsed.format].fileProblems(parsed);
}

function report(io: CliIO, problems: ValidationProblem[], json: boolean): number {
  if (json) {
    io.stdout(`${JSON.stringify({ valid: problems.length === 0, problems })}\n`);
  } else if (problems.length === 0) {
    io.stdout('valid\n');
  } else {
    io.stdout(problems.map((problem) => `${problem.path}: ${problem.message}\n`).join(''));
  }
  return problems.length === 0 ? 0 : 1;
}

/** Repairs a whole request's conversation and writes the whole request back. */
async function fixRequest(
  io: CliIO,
  request: RequestFile,
  problems: ValidationProblem[],
  options: ValidateArgs,
) {
  let repaired: ReturnType<typeof repairMessages>;
  try {
    repaired = repairMessages(request.conversation.messages, repairOptions(request.format));
  } catch (error) {
    if (CompactError.isInstance(error) && error.code === 'INVALID_TRANSCRIPT')
      throw new CliError(error.message, 1);
    throw error;
  }
  const { messages, changes } = repaired;
  const body =
    changes.length === 0 ? request.body : withMessages(request.body, request.conversation, messages);
  const output = options.output!;
  try {
    await writeFile(resolve(io.cwd, output), serializeRequest(body, request.oneLine));
  } catch (error) {
    throw new CliError(`${output}: ${describeFileError(error)}`, 2);
  }
  const remaining = requestProblems({
    ...request,
    body,
    conversation: readRequestConversation(body, request.format),
  });
  return reportFix(io, { problems, changes, output, remaining, json: options.json });
}

async function fix(
  io: CliIO,
  parsed: ParsedConversation,
  problems: ValidationProblem[],
  options: ValidateArgs,
) {
  let changes: RepairChange[];
  let messages = parsed.conversation.messages;
  // The repair speaks of the canonical messages; the user reads their own file.
  const inFile = dialects[parsed.format].filePaths?.(parsed) ?? ((text: string) => text);
  try {
    ({ messages, changes } = repairMessages(messages, repairOptions(parsed.format)));
  } catch (error) {
    if (error instanceof CompactError && error.code === 'INVALID_TRANSCRIPT')
      throw new CliError(inFile(error.message), 1);
    throw error;
  }
  changes = changes.map((change) => ({
    ...change,
    path: inFile(change.path),
    message: inFile(change.message),
  }));
  const text = serializeConversation({ ...parsed.conversation, messages }, parsed.format, {
    jsonl: parsed.layout === 'jsonl',
    ...(parsed.systemRole ? { systemRole: parsed.systemRole } : {}),
  });
  const output = options.output!;
  try {
    await writeFile(resolve(io.cwd, output), text);
  } catch (error) {
    throw new CliError(`${output}: ${describeFileError(error)}`, 2);
  }
  // What was written is read back and checked, rather than the input's as-read fields (the Gemini
  // contents, the OpenAI messages) that a repaired copy could carry stale.
  const remaining = problemsOf(parseConversation(text, { format: parsed.format }));
  return reportFix(io, { problems, changes, output, remaining, json: options.json });
}

/** A format whose API takes calls still to be answered at the end leaves them to the client. */
function repairOptions(format: WireFormat): RepairOptions {
  return { leaveTrailingToolUses: dialects[format].takesTrailingCalls === true };
}

/** What a repair did, printed; exit 0 when the written conversation is valid. */
function reportFix(
  io: CliIO,
  {
    problems,
    changes,
    output,
    remaining,
    json,
  }: {
    problems: ValidationProblem[];
    changes: RepairChange[];
    output: string;
    remaining: ValidationProblem[];
    json: boolean;
  },
): number {
  if (json) {
    io.stdout(
      `${JSON.stringify({ valid: problems.length === 0, problems, changes, output, fixedValid: remaining.length === 0 })}\n`,
    );
  } else {
    const lines = changes.map((change) => `${change.path}: ${change.message}\n`);
    const summary =
      changes.length === 0
        ? `valid; wrote ${output} unchanged\n`
        : `repaired with ${changes.length} change(s); wrote ${output}\n`;
    io.stdout(lines.join('') + summary);
    for (const problem of remaining) io.stderr(`still invalid: ${problem.path}: ${problem.message}\n`);
  }
  return remaining.length === 0 ? 0 : 1;
}
