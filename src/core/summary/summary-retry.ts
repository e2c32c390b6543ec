/**
 * The retry loop of the SDK summary adapters, for anyone writing a `SummaryModel` over
 * another provider: one timeout per try, the caller's AbortSignal, exponential backoff that honours
 * `retry-after`, and one clear `SUMMARY_FAILED` (with the provider's status) when every try failed.
 */
import { CompactError } from '../model/errors.js';

/** How often and how long a summary call is tried. */
export interface SummaryRetryPolicy {
  /** Retries after the first try. */
  maxRetries: number;
  /** The first backoff in milliseconds, doubled for each retry. */
  retryDelayMs: number;
  /** The longest backoff the doubling reaches. */
  maxRetryDelayMs: number;
  /** A `retry-after` longer than this gives up at once instead of waiting. */
  maxRetryAfterMs: number;
  /** Each try is aborted after this many milliseconds. */
  timeoutMs: number;
}

/** The retry options a summary adapter takes; {@link summaryRetryPolicy} fills in the defaults. */
export interface SummaryRetryOptions {
  /** Each try is aborted after this many milliseconds. @default 120000 */
  timeoutMs?: number;
  /** Retries after the first try (429, 5xx, timeouts, dropped connections). @default 2 */
  maxRetries?: number;
  /** The first backoff between tries, doubled each retry, unless `retry-after` says otherwise. @default 500 */
  retryDelayMs?: number;
  /** The longest backoff. @default 8000 */
  maxRetryDelayMs?: number;
  /** A `retry-after` longer than this fails at once so the compactor's fallback can take over. @default 60000 */
  maxRetryAfterMs?: number;
}

/** The policy for an adapter's options, defaults filled in. */
export function summaryRetryPolicy({
  timeoutMs = 120_000,
  maxRetries = 2,
  retryDelayMs = 500,
  maxRetryDelayMs = 8000,
  maxRetryAfterMs = 60_000,
}: SummaryRetryOptions): SummaryRetryPolicy {
  return { timeoutMs, maxRetries, retryDelayMs, maxRetryDelayMs, maxRetryAfterMs };
}

/** What the adapter makes of one failed try. */
export interface SummaryAttemptFailure {
  /** Whether another try may succeed (429, 5xx, timeouts, dropped connections). */
  retryable: boolean;
  /** The provider's HTTP status, when there was a response. */
  status?: number;
  /** The provider's message, or what went wrong. */
  message: string;
  /** The wait the provider asked for (`retry-after` / `retry-after-ms`). */
  retryAfterMs?: number;
}

/** Options of {@link callWithRetries}. */
export interface CallWithRetriesOptions<T> {
  /** Provider name for messages, e.g. `anthropic`. */
  provider: string;
  policy: SummaryRetryPolicy;
  /** The caller's signal; aborting it ends the call with code `ABORTED`. */
  signal?: AbortSignal;
  /** One try; must honour the signal it is given. Throw a `CompactError` to stop without retrying. */
  attempt: (signal: AbortSignal) => Promise<T>;
  /** Describes an error thrown by `attempt`. */
  describeError: (error: unknown) => SummaryAttemptFailure;
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, or the tries run out.
 *
 * @throws {CompactError} `SUMMARY_FAILED` with the last failure's status and message; `ABORTED`
 *   when the caller's signal aborts; a `CompactError` thrown by `attempt` as it is.
 * @example
 * const text = await callWithRetries({
 *   provider: 'my-provider',
 *   policy: { maxRetries: 2, retryDelayMs: 500, maxRetryDelayMs: 8000, maxRetryAfterMs: 60_000, timeoutMs: 120_000 },
 *   signal,
 *   describeError: describeSdkError,
 *   attempt: (attemptSignal) => myClient.summarize(prompt, { signal: attemptSignal }),
 * });
 */
export async function callWithRetries<T>({
  provider,
  policy,
  signal,
  attempt,
  describeError,
}: CallWithRetriesOptions<T>): Promise<T> {
  const tries = policy.maxRetries + 1;
  for (let tryIndex = 0; ; tryIndex += 1) {
    throwIfAborted(signal, provider);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${policy.timeoutMs} ms`));
    }, policy.timeoutMs);
    const forwardAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    let failure: SummaryAttemptFailure;
    let cause: unknown;
    try {
      return await attempt(controller.signal);
    } catch (error) {
      cause = error;
      throwIfAborted(signal, provider, error);
      if (CompactError.isInstance(error)) throw error;
      failure = timedOut
        ? { retryable: true, message: `no answer within ${policy.timeoutMs} ms (timeout)` }
        : describeError(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
    const triesSoFar = tryIndex + 1;
    const waitMs = failure.retryAfterMs ?? backoffMs(policy, tryIndex);
    const giveUpReason = !failure.retryable
      ? 'not retryable'
      : triesSoFar >= tries
        ? `${triesSoFar} ${triesSoFar === 1 ? 'try' : 'tries'}`
        : waitMs > policy.maxRetryAfterMs
          ? `retry-after of ${Math.round(waitMs)} ms exceeds ${policy.maxRetryAfterMs} ms`
          : undefined;
    if (giveUpReason !== undefined) {
      const statusText = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
      throw new CompactError(
        `${provider} summary call failed${statusText} after ${giveUpReason}: ${failure.message}`,
        {
          code: 'SUMMARY_FAILED',
          cause,
          ...(failure.status === undefined ? {} : { status: failure.status }),
        },
      );
    }
    await sleep(waitMs, signal, provider);
  }
}

function backoffMs(policy: SummaryRetryPolicy, tryIndex: number): number {
  const base = Math.min(policy.retryDelayMs * 2 ** tryIndex, policy.maxRetryDelayMs);
  // Up to a fifth less, so sessions that failed together do not retry together.
  return base * (1 - Math.random() * 0.2);
}

function throwIfAborted(signal: AbortSignal | undefined, provider: string, cause?: unknown): void {
  if (!signal?.aborted) return;
  throw new CompactError(`${provider} summary call aborted`, {
    code: 'ABORTED',
    cause: cause ?? signal.reason,
  });
}

function sleep(milliseconds: number, signal: AbortSignal | undefined, provider: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(
        new CompactError(`${provider} summary call aborted`, { code: 'ABORTED', cause: signal?.reason }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) from response headers. */
export function retryAfterMsFromHeaders(headers: unknown): number | undefined {
  if (typeof headers !== 'object' || headers === null || typeof (headers as Headers).get !== 'function') {
    return undefined;
  }
  const get = (name: string): string | null => (headers as Headers).get(name);
  const milliseconds = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = get('retry-after');
  if (value === null) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Describes an error from an official SDK (`status`, `headers`, the body's `error.message`):
 * 408, 409, 429 and 5xx are retryable, other statuses are not, and errors without a status
 * (dropped connections, resets) are.
 */
export function describeSdkError(error: unknown): SummaryAttemptFailure {
  const record = (typeof error === 'object' && error !== null ? error : {}) as {
    status?: unknown;
    headers?: unknown;
    message?: unknown;
    error?: unknown;
    cause?: unknown;
  };
  const status = typeof record.status === 'number' ? record.status : undefined;
  const message = providerMessage(record) ?? (error instanceof Error ? error.message : String(error));
  if (status === undefined) {
    const cause = record.cause instanceof Error ? `: ${record.cause.message}` : '';
    return { retryable: isConnectionError(error), message: `${message}${cause}` };
  }
  const retryAfterMs = retryAfterMsFromHeaders(record.headers);
  const shouldRetryHeader = readHeader(record.headers, 'x-should-retry');
  const retryable =
    shouldRetryHeader === 'true' ||
    (shouldRetryHeader !== 'false' && (status === 408 || status === 409 || status === 429 || status >= 500));
  return { retryable, status, message, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

const connectionCodes = /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EAI_AGAIN|UND_ERR_\w+)$/;

/**
 * True for errors of the connection rather than of the request: the SDKs' connection and timeout
 * errors, fetch's `TypeError` (e.g. `terminated` when the socket drops mid-body), socket codes.
 * An SDK error about the request itself (say, a bound too large for a non-streaming call) is not.
 */
function isConnectionError(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  const { name, code, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    code?: unknown;
    cause?: unknown;
  };
  if (typeof name === 'string' && /Connection|Timeout/.test(name)) return true;
  if (typeof code === 'string' && connectionCodes.test(code)) return true;
  return cause !== undefined && cause !== error && isConnectionError(cause);
}

function readHeader(headers: unknown, name: string): string | null {
  if (typeof headers !== 'object' || headers === null || typeof (headers as Headers).get !== 'function')
    return null;
  return (headers as Headers).get(name);
}

/** The provider's own message from an error body: Anthropic `{ error: { message } }` or OpenAI `{ message }`. */
function providerMessage(record: { error?: unknown }): string | undefined {
  const body = record.error;
  if (typeof body !== 'object' || body === null) return undefined;
  const inner = (body as { error?: unknown }).error;
  if (
    typeof inner === 'object' &&
    inner !== null &&
    typeof (inner as { message?: unknown }).message === 'string'
  ) {
    return (inner as { message: string }).message;
  }
  const direct = (body as { message?: unknown }).message;
  return typeof direct === 'string' ? direct : undefined;
}
