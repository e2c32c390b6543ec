/**
 * `agent-compact count FILE [--json] [--tokenizer o200k|cl100k|heuristic] [--format anthropic|openai|responses|gemini]`
 *
 * Counts the tokens of a conversation or a whole request the way agent-compact does everywhere:
 * the text and arguments of each block plus a fixed per-message and per-block overhead, and a
 * request's tool definitions.
 */

import type { SystemPrompt, TokenCounter } from 'agent-compact';
import { countMessageTokens, countSystemTokens, countToolTokens } from 'agent-compact/counters';
import type { WireFormat } from 'agent-compact/wire';
import type { CliCommand, CliIO } from '../cli-io.js';
import {
  type CliTokenizer,
  createCliCounter,
  formatOption,
  parseCommandArgs,
  singleFile,
  tokenizerOption,
} from '../command-args.js';
import { readConversationFile, streamConversationFile } from '../read-conversation.js';
import { type RequestFile, readRequestFile } from '../read-request.js';

/** A tokenizer the `count` command can use. */
export type CountTokenizer = CliTokenizer;

const help = `Usage: agent-compact count FILE [--json] [--tokenizer o200k|cl100k|heuristic] [--format anthropic|openai|responses|gemini]

Counts the tokens of a conversation (JSON object, JSON array of messages or JSONL; Anthropic,
OpenAI Chat, OpenAI Responses or Gemini shape) or of a whole request body (as an agent sends it: model, tools, system, messages …):
each block's text and arguments plus a fixed per-message and per-block overhead, and for a request
its tool definitions too — everything the provider bills as input.

Options:
  --json                 print { "tokens", "messages", "system", "tools", "tokenizer", "format" }
  --tokenizer TOKENIZER  o200k (default), cl100k or heuristic (no tokenizer tables); o200k and
                         cl100k need gpt-tokenizer (npm install gpt-tokenizer), else heuristic
  --format FORMAT        read the file as anthropic, openai, responses or gemini instead of detecting it
  -h, --help             show this help

Exit codes: 0 counted, 2 unreadable input or bad arguments.
`;

/** The `count` command. */
export const countCommand: CliCommand = async (args, io) => {
  const options = parseCountArgs(args);
  if (options.help) {
    io.stdout(help);
    return 0;
  }
  const counter = await createCliCounter(options.tokenizer, {
    stderr: io.stderr,
    asked: options.tokenizerAsked,
  });
  // Without gpt-tokenizer the CLI counts with the heuristic, and says so in what it prints.
  const tokenizer = counter.name === 'heuristic' ? 'heuristic' : options.tokenizer;
  const request = await readRequestFile(options.file, io, { format: options.format });
  const count = request ? countRequest(request, counter) : await countConversation(options, io, counter);
  const { tokens, messages, system, tools, format } = count;
  if (options.json) {
    io.stdout(`${JSON.stringify({ tokens, messages, system, tools, tokenizer, format })}\n`);
  } else {
    const toolsPart = request ? `, tools ${tools}` : '';
    io.stdout(
      `${tokens} tokens (${messages} messages, system ${system}${toolsPart}; ${tokenizer}, ${format})\n`,
    );
  }
  return 0;
};

/** What `count` reports. */
interface Count {
  tokens: number;
  messages: number;
  system: number;
  tools: number;
  format: WireFormat;
}

/** A whole request: everything the provider bills as input — system, tool definitions, messages. */
function countRequest({ conversation, format }: RequestFile, counter: TokenCounter): Count {
  const system = countSystemTokens(conversation.system, counter);
  const tools = countToolTokens(conversation.tools, counter);
  let tokens = system + tools;
  for (const message of conversation.messages) tokens += countMessageTokens(message, counter);
  return { tokens, messages: conversation.messages.length, system, tools, format };
}

async function countConversation(options: CountArgs, io: CliIO, counter: TokenCounter): Promise<Count> {
  let tokens = 0;
  let messages = 0;
  // Anthropic JSONL is counted as it streams, so a session larger than memory still counts.
  let read: { system?: SystemPrompt | undefined; format: WireFormat } | undefined =
    await streamConversationFile(options.file, io, { format: options.format }, (message) => {
      tokens += countMessageTokens(message, counter);
      messages += 1;
    });
  if (read === undefined) {
    const { conversation, format } = await readConversationFile(options.file, io, { format: options.format });
    tokens = 0;
    for (const message of conversation.messages) tokens += countMessageTokens(message, counter);
    messages = conversation.messages.length;
    read = { system: conversation.system, format };
  }
  const system = countSystemTokens(read.system, counter);
  return { tokens: tokens + system, messages, system, tools: 0, format: read.format };
}

interface CountArgs {
  help: boolean;
  file: string;
  json: boolean;
  tokenizer: CountTokenizer;
  /** `--tokenizer` was given (not the default), so a fallback to the heuristic gets a note. */
  tokenizerAsked: boolean;
  format: WireFormat | undefined;
}

function parseCountArgs(args: string[]): CountArgs {
  const { values, positionals } = parseCommandArgs(args, {
    json: { type: 'boolean' },
    tokenizer: { type: 'string' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help)
    return {
      help: true,
      file: '',
      json: false,
      tokenizer: 'o200k',
      tokenizerAsked: false,
      format: undefined,
    };
  return {
    help: false,
    file: singleFile(positionals),
    json: values.json === true,
    tokenizer: tokenizerOption(values.tokenizer),
    tokenizerAsked: values.tokenizer !== undefined,
    format: formatOption(values.format),
  };
}
