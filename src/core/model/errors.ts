import type { ValidationProblem } from './problems.js';

/** Machine-readable reason for a {@link CompactError}. */
export type CompactErrorCode =
  /** The conversation breaks the provider's rules or the message model. */
  | 'INVALID_TRANSCRIPT'
  /** Input could not be read or parsed at all (missing file, broken JSON, wrong types). */
  | 'UNREADABLE_INPUT'
  /** The conversation cannot be brought under the hard threshold. */
  | 'CONTEXT_OVERFLOW'
  /** The summary model failed after every retry. */
  | 'SUMMARY_FAILED'
  /** The archive store could not read or write. */
  | 'ARCHIVE_FAILED'
  /** An archived item was asked for that does not exist. */
  | 'ARCHIVE_ITEM_NOT_FOUND'
  /** An option passed to a factory is out of range or inconsistent. */
  | 'INVALID_OPTIONS'
  /** The operation was aborted through an AbortSignal. */
  | 'ABORTED'
  /** A session state was saved by someone else since it was loaded (see `SessionStateStore`). */
  | 'STATE_CONFLICT'
  /** The session state store could not read or write, or did not answer in time. */
  | 'STATE_FAILED'
  /** An optional peer dependency a feature needs is not installed (the message names the install command). */
  | 'MISSING_DEPENDENCY';

const marker = Symbol.for('agent-compact.error');

/** Options of {@link CompactError}. */
export interface CompactErrorOptions {
  /** The machine-readable reason. */
  code: CompactErrorCode;
  /** Where in the input the problem is, e.g. `messages[12].content[0]`. */
  path?: string;
  /** The underlying error. */
  cause?: unknown;
  /** HTTP status from a provider, when the error came from one. */
  status?: number;
  /** Every rule the input breaks, for `INVALID_TRANSCRIPT` errors from validation. */
  problems?: readonly ValidationProblem[];
}

/**
 * The one root error of agent-compact. Every error the library throws on purpose is one of these,
 * with a `code` and, where known, the `path` of the offending value.
 */
export class CompactError extends Error {
  /** The machine-readable reason. */
  readonly code: CompactErrorCode;
  /** Where in the input the problem is. */
  readonly path: string | undefined;
  /** HTTP status from a provider, when the error came from one. */
  readonly status: number | undefined;
  /** Every rule the input breaks, for `INVALID_TRANSCRIPT` errors from validation. */
  readonly problems: readonly ValidationProblem[] | undefined;
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through the Symbol.for key in isInstance
  private readonly [marker] = true;

  constructor(message: string, { code, path, cause, status, problems }: CompactErrorOptions) {
    super(path ? `${path}: ${message}` : message, { cause });
    this.name = new.target.name;
    this.code = code;
    this.path = path;
    this.status = status;
    this.problems = problems;
  }

  /** True for a `CompactError` from any copy of this package (checks a `Symbol.for` marker). */
  static isInstance(error: unknown): error is CompactError {
    if (typeof error !== 'object' || error === null) return false;
    // A thrown Proxy may throw on any read: it is no CompactError, and asking must not throw.
    try {
      return (error as Record<symbol, unknown>)[marker] === true;
    } catch {
      return false;
    }
  }
}
