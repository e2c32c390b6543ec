/**
 * The scripted server's token arithmetic: a deterministic estimate tests can reason about, and a
 * prompt cache that behaves like the providers' (exact prefix match at cache breakpoints).
 */
import { createHash, type Hash } from 'node:crypto';
import type { WireFormat } from 'agent-compact/wire';

/**
 * The server's token estimate for one JSON value: its JSON length divided by four, rounded up.
 *
 * @example
 * estimateTokens({ type: 'text', text: 'hello' }); // 8
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value) ?? '').length / 4);
}

/** One countable piece of a request: a tool definition, a system block, a content block or message. */
export interface RequestUnit {
  /** The value counted and hashed, without `cache_control`. */
  value: unknown;
  /** True when this unit carries an Anthropic cache breakpoint. */
  breakpoint: boolean;
}

/** Input tokens of a request split the way the provider reports them. */
export interface InputUsage {
  /** Everything in the prompt. */
  totalTokens: number;
  /** Tokens neither read from nor written to the cache. */
  uncachedTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

function withoutCacheControl(value: unknown): { value: unknown; breakpoint: boolean } {
  if (typeof value !== 'object' || value === null || !('cache_control' in value)) {
    return { value, breakpoint: false };
  }
  const { cache_control: cacheControl, ...rest } = value as Record<string, unknown>;
  return { value: rest, breakpoint: cacheControl !== undefined && cacheControl !== null };
}

function arrayOrEmpty(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function anthropicUnits(body: Record<string, unknown>): RequestUnit[] {
  const units: RequestUnit[] = [];
  for (const tool of arrayOrEmpty(body.tools)) units.push(withoutCacheControl(tool));
  const system = body.system;
  // A string is the same prompt as one text block, as the provider treats it.
  const systemBlocks = typeof system === 'string' ? [{ type: 'text', text: system }] : arrayOrEmpty(system);
  for (const block of systemBlocks) units.push(withoutCacheControl(block));
  units.push(...anthropicMessageUnits(arrayOrEmpty(body.messages)));
  return units;
}

/**
 * Anthropic messages as the provider reads them: block by block, a string content as its one text
 * block, `cache_control` aside (what the prompt cache and the thinking check compare).
 */
export function anthropicMessageUnits(messages: readonly unknown[]): RequestUnit[] {
  const units: RequestUnit[] = [];
  for (const message of messages) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    if (!Array.isArray(blocks)) {
      units.push({ value: { role, content }, breakpoint: false });
      continue;
    }
    blocks.forEach((block, blockIndex) => {
      const unit = withoutCacheControl(block);
      // The role goes with the first block so that the same blocks under another role differ.
      units.push(
        blockIndex === 0 ? { value: { role, block: unit.value }, breakpoint: unit.breakpoint } : unit,
      );
    });
  }
  return units;
}

function openAIUnits(body: Record<string, unknown>): RequestUnit[] {
  const units: RequestUnit[] = [];
  for (const tool of arrayOrEmpty(body.tools)) units.push({ value: tool, breakpoint: false });
  // OpenAI caches automatically: every message boundary is a potential cache hit.
  for (const message of arrayOrEmpty(body.messages)) units.push({ value: message, breakpoint: true });
  return units;
}

function responsesUnits(body: Record<string, unknown>): RequestUnit[] {
  const units: RequestUnit[] = [];
  for (const tool of arrayOrEmpty(body.tools)) units.push({ value: tool, breakpoint: false });
  if (body.instructions !== undefined) units.push({ value: body.instructions, breakpoint: true });
  // Like Chat Completions, caching is automatic: every item boundary is a potential cache hit.
  const input = typeof body.input === 'string' ? [body.input] : arrayOrEmpty(body.input);
  for (const item of input) units.push({ value: item, breakpoint: true });
  return units;
}

/** Gemini: tools, system instruction, then each content (implicit caching: every content boundary). */
function geminiUnits(body: Record<string, unknown>): RequestUnit[] {
  const units: RequestUnit[] = [];
  for (const tool of arrayOrEmpty(body.tools)) units.push({ value: tool, breakpoint: false });
  if (body.systemInstruction !== undefined) units.push({ value: body.systemInstruction, breakpoint: true });
  for (const content of arrayOrEmpty(body.contents)) units.push({ value: content, breakpoint: true });
  return units;
}

/** How each API's request splits into counted units: a table, not a switch, so a new API is one line. */
const unitsByApi: Record<WireFormat, (body: Record<string, unknown>) => RequestUnit[]> = {
  anthropic: anthropicUnits,
  openai: openAIUnits,
  responses: responsesUnits,
  gemini: geminiUnits,
};

function unitsOf(api: WireFormat, body: Record<string, unknown>): RequestUnit[] {
  const units = Object.hasOwn(unitsByApi, api) ? unitsByApi[api] : undefined;
  if (!units) throw new Error(`unknown api ${String(api)}`);
  return units(body);
}

/** Input tokens of a request by the server's estimate, as {@link estimateTokens} per unit. */
export function estimateRequestTokens(api: WireFormat, body: Record<string, unknown>): number {
  const units = unitsOf(api, body);
  return units.reduce((sum, unit) => sum + estimateTokens(unit.value), 0);
}

/** A provider-like prompt cache: remembers prefixes up to cache breakpoints, by hash. */
export class PromptCache {
  readonly #prefixes = new Set<string>();

  /**
   * Counts a request's input tokens and reads from / writes to the cache like the provider; only a
   * provider that `reportsWrites` counts the newly cached prefix apart from the uncached tokens.
   */
  measure(
    api: WireFormat,
    body: Record<string, unknown>,
    { reportsWrites }: { reportsWrites: boolean },
  ): InputUsage {
    const units = unitsOf(api, body);
    // Prefixes are hashed only up to the last breakpoint: past it (or without one) nothing is cached.
    const hashedUnits = units.findLastIndex((unit) => unit.breakpoint) + 1;
    const hash: Hash = createHash('sha256');
    hash.update(api);
    let runningTokens = 0;
    let cacheReadTokens = 0;
    let lastBreakpointTokens = 0;
    const newPrefixes: string[] = [];
    for (const [index, unit] of units.entries()) {
      // One serialization per unit for the hash and the count (what estimateTokens would do again).
      const json: string | undefined = JSON.stringify(unit.value);
      if (index < hashedUnits) hash.update(`\u0000${json}`);
      runningTokens += Math.ceil((json ?? '').length / 4);
      if (!unit.breakpoint) continue;
      const key = hash.copy().digest('hex');
      if (this.#prefixes.has(key)) cacheReadTokens = runningTokens;
      else newPrefixes.push(key);
      lastBreakpointTokens = runningTokens;
    }
    for (const key of newPrefixes) this.#prefixes.add(key);
    if (!reportsWrites) {
      return {
        totalTokens: runningTokens,
        uncachedTokens: runningTokens - cacheReadTokens,
        cacheReadTokens,
        cacheWriteTokens: 0,
      };
    }
    const cacheWriteTokens = Math.max(0, lastBreakpointTokens - cacheReadTokens);
    return {
      totalTokens: runningTokens,
      uncachedTokens: runningTokens - cacheReadTokens - cacheWriteTokens,
      cacheReadTokens,
      cacheWriteTokens,
    };
  }
}
