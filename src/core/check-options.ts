// The shape of a compactor's options, checked before any is used: a JavaScript caller, or options
// read from a JSON config, gets `INVALID_OPTIONS` naming the option (`hard.maxSummaryTokens`)
// instead of a TypeError from deep inside its first call, or a value silently read as another.

import { CompactError } from './model/errors.js';

/** What one option must be. Options left out (undefined) always pass. */
export type OptionRule =
  /** A number ≥ 0. */
  | 'count'
  /** A number > 0. */
  | 'positive'
  /** A number in (0, 1]. */
  | 'fraction'
  | 'boolean'
  | 'string'
  /** A string with something in it. */
  | 'name'
  | 'strings'
  /** An array of objects (a request's tool definitions). */
  | 'objects'
  | 'function'
  /** One of these strings. */
  | { oneOf: readonly string[] }
  /** An object with these functions (a store, a model, a counter), or one of `or`. */
  | { methods: readonly string[]; or?: readonly string[] }
  /** An object whose fields follow these rules. */
  | { fields: OptionRules };

/** The rules of an options object, by key. */
export type OptionRules = Readonly<Record<string, OptionRule>>;

const summaryModel: OptionRule = { methods: ['summarize'] };

/** The options a compactor shares with what builds one (the proxy): their rules, for both. */
export const sharedCompactorRules = {
  thresholds: { fields: { mid: 'positive', hard: 'positive' } },
  contextWindow: 'positive',
  counter: { methods: ['countText'] },
  archive: { methods: ['put', 'get', 'list'] },
  stateStore: { methods: ['load', 'save'] },
  recall: 'boolean',
} as const satisfies OptionRules;

const compactorRules: OptionRules = {
  ...sharedCompactorRules,
  reserveOutputTokens: 'count',
  thresholdFractions: { fields: { mid: 'fraction', hard: 'fraction' } },
  sessionId: 'name',
  summarizer: summaryModel,
  identity: 'string',
  cacheTtlSeconds: 'count',
  codeParser: { methods: ['outline'] },
  onEvent: 'function',
  micro: {
    fields: {
      keepTurns: 'count',
      minTokens: 'count',
      excludeTools: 'strings',
      supersede: 'boolean',
      cacheAware: 'boolean',
      clearAtLeast: 'count',
      startAt: 'count',
      keepReads: { fields: { turns: 'count', maxTokens: 'count' } },
    },
  },
  mid: {
    fields: {
      keepToolResults: 'count',
      maxAssistantChars: 'count',
      maxToolInputTokens: 'count',
      summarizer: summaryModel,
    },
  },
  hard: {
    fields: {
      maxSummaryTokens: 'positive',
      maxAttempts: 'positive',
      retryDelayMs: 'count',
      timeoutMs: 'positive',
      ledgerTokens: 'count',
      workingSetTokens: 'count',
      filesBack: { fields: { maxFiles: 'count', maxTokens: 'count' } },
      keptTurnTokens: 'count',
      background: 'boolean',
      backgroundThreshold: 'positive',
      backgroundLimit: 'positive',
    },
  },
};

const callRules: OptionRules = {
  summarizer: summaryModel,
  tools: 'objects',
  focus: 'string',
  now: 'count',
  force: { oneOf: ['mid', 'hard'] },
  preservedThinking: 'boolean',
  resetThinking: 'boolean',
};

/**
 * Throws `INVALID_OPTIONS` at the first option of `createCompactor` that has the wrong shape; `own`
 * adds the rules of the options an entry point that makes compactors takes beside them.
 */
export function checkCompactorOptions(options: unknown, own: OptionRules = {}): void {
  checkOptions(options, { ...compactorRules, ...own });
}

/** Throws `INVALID_OPTIONS` at the first option of a `maybeCompact` call that has the wrong shape. */
export function checkCallOptions(options: unknown): void {
  checkOptions(options, callRules);
}

const summaryModelRules: OptionRules = {
  model: 'name',
  apiKey: 'string',
  baseURL: 'string',
  maxTokens: 'positive',
  contextWindow: 'positive',
  timeoutMs: 'positive',
  maxRetries: 'count',
  retryDelayMs: 'count',
  maxRetryDelayMs: 'count',
  maxRetryAfterMs: 'count',
};

/** Throws `INVALID_OPTIONS` at the first option of a provider's summary model factory of the wrong shape. */
export function checkSummaryModelOptions(options: unknown): void {
  checkOptions(options, summaryModelRules);
  if ((options as { model?: unknown } | undefined)?.model === undefined)
    fail('model', 'a model id', undefined);
}

/** Throws `INVALID_OPTIONS`, with the option's path, at the first option `rules` refuse. */
export function checkOptions(options: unknown, rules: OptionRules): void {
  checkFields(options, rules, undefined);
}

function checkFields(value: unknown, rules: OptionRules, path: string | undefined): void {
  if (value === undefined) return;
  if (!isObject(value)) fail(path ?? 'options', 'an object', value);
  for (const [key, rule] of Object.entries(rules)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) checkRule(field, rule, path === undefined ? key : `${path}.${key}`);
  }
}

function checkRule(value: unknown, rule: OptionRule, path: string): void {
  if (typeof rule !== 'object') {
    if (!passes(value, rule)) fail(path, expected[rule], value);
  } else if ('fields' in rule) {
    checkFields(value, rule.fields, path);
  } else if ('oneOf' in rule) {
    if (!rule.oneOf.includes(value as string)) fail(path, quotedList(rule.oneOf), value);
  } else if (!(typeof value === 'string' && rule.or?.includes(value))) {
    checkMethods(value, rule.methods, path, rule.or);
  }
}

function checkMethods(
  value: unknown,
  methods: readonly string[],
  path: string,
  or: readonly string[] = [],
): void {
  const object = `an object with ${methods.map((name) => `${name}()`).join(', ')}`;
  const wanted =
    or.length > 0 ? `${or.map((value) => JSON.stringify(value)).join(', ')} or ${object}` : object;
  if (!isObject(value)) fail(path, wanted, value);
  const missing = methods.find((name) => typeof value[name] !== 'function');
  if (missing !== undefined)
    throw new CompactError(`must be ${wanted}; ${missing}() is missing`, { code: 'INVALID_OPTIONS', path });
}

function passes(value: unknown, rule: Exclude<OptionRule, object>): boolean {
  switch (rule) {
    // Infinity is a budget with no limit (`keptTurnTokens: Infinity`); NaN fails both.
    case 'count':
      return typeof value === 'number' && value >= 0;
    case 'positive':
      return typeof value === 'number' && value > 0;
    case 'fraction':
      return typeof value === 'number' && value > 0 && value <= 1;
    case 'name':
      return typeof value === 'string' && value.trim() !== '';
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'objects':
      return Array.isArray(value) && value.every(isObject);
    default:
      return typeof value === rule;
  }
}

const expected: Readonly<Record<Exclude<OptionRule, object>, string>> = {
  count: 'a number ≥ 0',
  positive: 'a number > 0',
  fraction: 'a number over 0 and at most 1',
  boolean: 'true or false',
  string: 'a string',
  name: 'a non-empty string',
  strings: 'an array of strings',
  objects: 'an array of objects',
  function: 'a function',
};

/** `"mid" or "hard"`, `"a", "b" or "c"`. */
function quotedList(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted.join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, wanted: string, value: unknown): never {
  throw new CompactError(`must be ${wanted}, got ${shown(value)}`, { code: 'INVALID_OPTIONS', path });
}

/** A value as an error message may show it: a short string quoted, an object by its kind. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' || typeof value === 'function'
    ? `a value of type ${typeof value}`
    : String(value);
}
