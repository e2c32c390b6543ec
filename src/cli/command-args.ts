/** Argument parsing the commands share: node's `util.parseArgs`, with every mistake a one-line UsageError. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { TokenCounter } from 'agent-compact';
import { WIRE_FORMATS, type WireFormat } from 'agent-compact/wire';
import { CliError, UsageError } from './cli-io.js';

/** The option declarations `util.parseArgs` takes. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseCommandArgs} returns: typed values and the positionals. */
export type ParsedCommandArgs<Options extends OptionSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: Options; strict: true; allowPositionals: true }>
>;

/** Parses strictly (unknown flags are errors) with positionals allowed. */
export function parseCommandArgs<const Options extends OptionSpec>(
  args: string[],
  options: Options,
): ParsedCommandArgs<Options> {
  try {
    return parseArgs({
      args: withNegativeValues(args, options),
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw asUsageError(error);
  }
}

/**
 * `--mid -5` as `--mid=-5`: a value flag followed by a negative number takes it as its value, so the
 * flag's own check says what is wrong with it (parseArgs would call the value ambiguous).
 */
export function withNegativeValues(args: readonly string[], options: OptionSpec): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const next = args[index + 1];
    if (arg === '--') return [...result, ...args.slice(index)];
    if (next !== undefined && /^-\d/.test(next) && takesValue(arg, options)) {
      result.push(`${arg}=${next}`);
      index++;
    } else result.push(arg);
  }
  return result;
}

function takesValue(arg: string, options: OptionSpec): boolean {
  if (!arg.startsWith('--') || arg.includes('=')) return false;
  return options[arg.slice(2)]?.type === 'string';
}

/** Node's parseArgs error in the CLI's own words, one line: `unknown option --bogus`. */
export function asUsageError(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const name = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${name} (see --help)`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(
        message.includes('does not take an argument')
          ? `${name} takes no value (see --help)`
          : `${name} needs a value (see --help)`,
      );
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? ''}" (see --help)`);
    default:
      return new UsageError(`${message.split('\n')[0]} (see --help)`);
  }
}

/** The one FILE positional a command takes. */
export function singleFile(positionals: readonly string[]): string {
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('missing FILE (see --help)');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" (see --help)`);
  return file;
}

/** The `--format` flag of conversation files. */
export function formatOption(value: string | undefined): WireFormat | undefined {
  const formats: readonly string[] = WIRE_FORMATS;
  if (value !== undefined && !formats.includes(value)) {
    const names = WIRE_FORMATS.map((name) => `"${name}"`);
    const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
    throw new UsageError(`--format must be ${list}, got "${value}"`);
  }
  return value as WireFormat | undefined;
}

/** A tokenizer a command can count with. */
export type CliTokenizer = 'o200k' | 'cl100k' | 'heuristic';

/** The `--tokenizer` flag (default o200k). */
export function tokenizerOption(value: string | undefined): CliTokenizer {
  const tokenizer = value ?? 'o200k';
  if (tokenizer !== 'o200k' && tokenizer !== 'cl100k' && tokenizer !== 'heuristic') {
    throw new UsageError(`--tokenizer must be "o200k", "cl100k" or "heuristic", got "${tokenizer}"`);
  }
  return tokenizer;
}

/** A positive whole-number flag such as `--mid`. */
export function positiveIntegerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) {
    throw new UsageError(`--${name} must be a positive whole number, got "${value}"`);
  }
  return number;
}

/** How {@link createCliCounter} reports falling back to the heuristic. */
export interface CliCounterOptions {
  /** Where the one-line note goes when the BPE tokenizer is missing. */
  stderr?: (text: string) => void;
  /** Whether the user asked for this tokenizer (a flag), so a fallback deserves a note. */
  asked?: boolean;
}

/**
 * The counter for a tokenizer; the BPE tables load only when asked for, as they are large. Without
 * the optional peer `gpt-tokenizer` it counts with the heuristic (which the compactor anchors to
 * provider usage), with a note on stderr when the user asked for a BPE tokenizer.
 */
export async function createCliCounter(
  tokenizer: CliTokenizer,
  { stderr, asked = false }: CliCounterOptions = {},
): Promise<TokenCounter> {
  switch (tokenizer) {
    case 'heuristic': {
      const { createHeuristicCounter } = await import('agent-compact/counters');
      return createHeuristicCounter();
    }
    case 'o200k':
    case 'cl100k': {
      const { isTokenizerInstalled, TOKENIZER_INSTALL_COMMAND } = await import('agent-compact/internal');
      if (!isTokenizerInstalled()) {
        if (asked) {
          stderr?.(
            `note: --tokenizer ${tokenizer} needs gpt-tokenizer (${TOKENIZER_INSTALL_COMMAND}); counting with the anchored heuristic\n`,
          );
        }
        return createCliCounter('heuristic');
      }
      const { createTiktokenCounter } = await import('agent-compact/tokenizer');
      return createTiktokenCounter({ encoding: tokenizer });
    }
    default: {
      const unreachable: never = tokenizer;
      throw new CliError(`unknown tokenizer ${String(unreachable)}`, 2);
    }
  }
}
