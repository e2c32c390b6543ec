/** Argument parsing the commands share: node's `util.parseArgs`, with every mistake a one-line CliError. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { MessageFormat } from '../core/conversation/types.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import { CliError } from './cli-io.js';

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
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : String(error)} (see --help)`, 2);
  }
}

/** The one FILE positional a command takes. */
export function singleFile(positionals: readonly string[]): string {
  const [file, ...extra] = positionals;
  if (file === undefined) throw new CliError('missing FILE (see --help)', 2);
  if (extra.length > 0) throw new CliError(`unexpected argument "${extra[0]}" (see --help)`, 2);
  return file;
}

/** The `--format` flag of conversation files. */
export function formatOption(value: string | undefined): MessageFormat | undefined {
  const formats = ['anthropic', 'openai', 'responses', 'gemini'];
  if (value !== undefined && !formats.includes(value)) {
    throw new CliError(`--format must be "anthropic", "openai", "responses" or "gemini", got "${value}"`, 2);
  }
  return value as MessageFormat | undefined;
}

/** A tokenizer a command can count with. */
export type CliTokenizer = 'o200k' | 'cl100k' | 'heuristic';

/** The `--tokenizer` flag (default o200k). */
export function tokenizerOption(value: string | undefined): CliTokenizer {
  const tokenizer = value ?? 'o200k';
  if (tokenizer !== 'o200k' && tokenizer !== 'cl100k' && tokenizer !== 'heuristic') {
    throw new CliError(`--tokenizer must be "o200k", "cl100k" or "heuristic", got "${tokenizer}"`, 2);
  }
  return tokenizer;
}

/** A positive whole-number flag such as `--mid`. */
export function positiveIntegerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) {
    throw new CliError(`--${name} must be a positive whole number, got "${value}"`, 2);
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
      const { createHeuristicCounter } = await import('../core/tokens/heuristic-counter.js');
      return createHeuristicCounter();
    }
    case 'o200k':
    case 'cl100k': {
      const { isTokenizerInstalled, TOKENIZER_INSTALL_COMMAND } = await import(
        '../tokenizer/load-tokenizer.js'
      );
      if (!isTokenizerInstalled()) {
        if (asked) {
          stderr?.(
            `note: --tokenizer ${tokenizer} needs gpt-tokenizer (${TOKENIZER_INSTALL_COMMAND}); counting with the anchored heuristic\n`,
          );
        }
        return createCliCounter('heuristic');
      }
      const { createTiktokenCounter } = await import('../tokenizer/index.js');
      return createTiktokenCounter({ encoding: tokenizer });
    }
    default: {
      const unreachable: never = tokenizer;
      throw new CliError(`unknown tokenizer ${String(unreachable)}`, 2);
    }
  }
}
