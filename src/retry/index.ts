/**
 * `agent-compact/retry`: for authors of a custom `SummaryModel`, the retry loop the SDK adapters use
 * (retryable statuses, `retry-after`, backoff, abort).
 */

export {
  type CallWithRetriesOptions,
  callWithRetries,
  describeSdkError,
  retryAfterMsFromHeaders,
  type SummaryAttemptFailure,
  type SummaryRetryOptions,
  type SummaryRetryPolicy,
  summaryRetryPolicy,
} from '../core/summary/summary-retry.js';
