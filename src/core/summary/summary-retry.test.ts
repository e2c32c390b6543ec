import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import {
  callWithRetries,
  describeSdkError,
  retryAfterMsFromHeaders,
  type SummaryRetryPolicy,
} from './summary-retry.js';

const policy: SummaryRetryPolicy = {
  maxRetries: 2,
  retryDelayMs: 10,
  maxRetryDelayMs: 15,
  maxRetryAfterMs: 1000,
  timeoutMs: 1000,
};

class FakeApiError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly error: unknown,
  ) {
    super(`${status} error`);
  }
}

describe('describeSdkError', () => {
  it.each([
    [
      new FakeApiError(429, new Headers({ 'retry-after': '2' }), {}),
      { retryable: true, status: 429, retryAfterMs: 2000 },
    ],
    [new FakeApiError(500, new Headers(), {}), { retryable: true, status: 500 }],
    [new FakeApiError(400, new Headers(), {}), { retryable: false, status: 400 }],
    [
      new FakeApiError(500, new Headers({ 'x-should-retry': 'false' }), {}),
      { retryable: false, status: 500 },
    ],
    [
      new FakeApiError(409, new Headers({ 'retry-after-ms': '250' }), {}),
      { retryable: true, status: 409, retryAfterMs: 250 },
    ],
    [new TypeError('terminated'), { retryable: true }],
    [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), { retryable: true }],
    [
      Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }),
      { retryable: true },
    ],
    [
      new Error('Streaming is required for operations that may take longer than 10 minutes.'),
      { retryable: false },
    ],
  ])('%s', (error, expected) => {
    expect(describeSdkError(error)).toMatchObject(expected);
  });

  it("reads the provider's message from both error body shapes", () => {
    const anthropic = new FakeApiError(529, new Headers(), {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const openai = new FakeApiError(503, new Headers(), {
      message: 'Service unavailable',
      type: 'server_error',
    });
    expect(describeSdkError(anthropic).message).toBe('Overloaded');
    expect(describeSdkError(openai).message).toBe('Service unavailable');
  });
});

describe('retryAfterMsFromHeaders', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMsFromHeaders(new Headers({ 'retry-after': '1.5' }))).toBe(1500);
    expect(retryAfterMsFromHeaders(new Headers({ 'retry-after-ms': '20', 'retry-after': '9' }))).toBe(20);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMsFromHeaders(new Headers({ 'retry-after': inTenSeconds }))).toBeGreaterThan(8000);
    expect(retryAfterMsFromHeaders(new Headers())).toBeUndefined();
    expect(retryAfterMsFromHeaders(undefined)).toBeUndefined();
  });
});

describe('callWithRetries', () => {
  it('returns the first success and counts tries', async () => {
    let tries = 0;
    const result = await callWithRetries({
      provider: 'test',
      policy,
      describeError: () => ({ retryable: true, message: 'flaky' }),
      attempt: async () => {
        tries += 1;
        if (tries < 3) throw new Error('flaky');
        return 'ok';
      },
    });
    expect(result).toBe('ok');
    expect(tries).toBe(3);
  });

  it('passes a CompactError from an attempt straight through', async () => {
    let tries = 0;
    const thrown = new CompactError('empty answer', { code: 'SUMMARY_FAILED' });
    const error = await callWithRetries({
      provider: 'test',
      policy,
      describeError: () => ({ retryable: true, message: 'never used' }),
      attempt: async () => {
        tries += 1;
        throw thrown;
      },
    }).catch((caught: unknown) => caught);
    expect(error).toBe(thrown);
    expect(tries).toBe(1);
  });

  it('aborts a try that outlives the timeout, through the signal it was given', async () => {
    const error = await callWithRetries({
      provider: 'test',
      policy: { ...policy, maxRetries: 0, timeoutMs: 30 },
      describeError: () => ({ retryable: true, message: 'unused' }),
      attempt: (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'SUMMARY_FAILED',
      message: 'test summary call failed after 1 try: no answer within 30 ms (timeout)',
    });
  });
});
