import type { ToolDefinition } from '../model/request.js';
import type { TokenCounter } from './token-counter.js';

/**
 * Tokens every tool definition costs beyond its name, description and schema: the wrapping the
 * provider renders around each definition. Anthropic and OpenAI both spend a handful per tool.
 */
export const TOOL_OVERHEAD_TOKENS = 8;

/**
 * Tokens a non-empty tool list costs once: the preamble the provider adds to the system prompt to
 * explain the tools (Anthropic documents a few hundred; OpenAI's is smaller).
 */
export const TOOLS_PREAMBLE_TOKENS = 100;

const cacheByCounter = new WeakMap<TokenCounter, WeakMap<object, number>>();

/**
 * Tokens of a request's tool definitions, whatever the provider shape: for each tool
 * {@link TOOL_OVERHEAD_TOKENS} plus its name, description and the JSON of its schema (the JSON of
 * the whole definition for shapes without those fields), plus {@link TOOLS_PREAMBLE_TOKENS} once
 * for a non-empty list. Counts are cached per definition object.
 *
 * @example
 * import { countToolTokens, createHeuristicCounter } from 'agent-compact/counters';
 *
 * countToolTokens(
 *   [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
 *   createHeuristicCounter(),
 * );
 */
export function countToolTokens(tools: readonly ToolDefinition[] | undefined, counter: TokenCounter): number {
  if (tools === undefined || tools.length === 0) return 0;
  let cache = cacheByCounter.get(counter);
  if (cache === undefined) {
    cache = new WeakMap();
    cacheByCounter.set(counter, cache);
  }
  let total = TOOLS_PREAMBLE_TOKENS;
  for (const tool of tools) {
    if (typeof tool !== 'object' || tool === null) continue;
    let tokens = cache.get(tool);
    if (tokens === undefined) {
      tokens = TOOL_OVERHEAD_TOKENS + definitionTokens(tool, counter);
      cache.set(tool, tokens);
    }
    total += tokens;
  }
  return total;
}

/** The parts of a definition the provider renders into the prompt. */
function definitionTokens(tool: object, counter: TokenCounter): number {
  const record = tool as Record<string, unknown>;
  // OpenAI chat nests the function; Anthropic and Responses keep the fields at the top.
  const nested = record.function;
  const fields =
    record.type === 'function' && typeof nested === 'object' && nested !== null
      ? (nested as Record<string, unknown>)
      : record;
  const schema = fields.input_schema ?? fields.parameters;
  if (typeof fields.name !== 'string' || schema === undefined) {
    // Server tools and other typed tools: their JSON is the best measure we have.
    return counter.countText(JSON.stringify(tool));
  }
  const description = typeof fields.description === 'string' ? fields.description : '';
  return (
    counter.countText(fields.name) +
    counter.countText(description) +
    counter.countText(JSON.stringify(schema))
  );
}
