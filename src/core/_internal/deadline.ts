/**
 * A model call that settles by its deadline whatever the model does. A summarizer is handed a
 * signal that aborts at the deadline, but one that ignores it (or never answers) would hold
 * compaction up for ever; the call is raced against the deadline too, so the caller falls back.
 */

/**
 * Runs `call` with a signal that aborts after `timeoutMs` or with `signal`, and rejects by then:
 * with a `TimeoutError` at the deadline, with the caller's reason when it aborts first (without
 * calling when it already has). The timer keeps the process alive while the call is pending.
 */
export async function withinDeadline<T>(
  call: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<T> {
  // An aborted caller makes no call: each is billed.
  if (signal?.aborted) throw signal.reason;
  const controller = new AbortController();
  const abortWithCaller = () => controller.abort(signal?.reason);
  const ended = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  // Observed here: the race below may have settled before a late abort rejects it.
  ended.catch(() => {});
  signal?.addEventListener('abort', abortWithCaller, { once: true });
  const timer = setTimeout(() => {
    const message = `the model did not answer within ${timeoutMs} ms`;
    controller.abort(new DOMException(message, 'TimeoutError'));
  }, timeoutMs);
  try {
    return await Promise.race([call(controller.signal), ended]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abortWithCaller);
  }
}
