/**
 * The Anthropic and OpenAI SDKs read `x-should-retry`: the proxy's own failures (an upstream
 * that failed or timed out) are worth a retry, but a body over the size cap cannot fit next time.
 */
export function retryHeaders(status: number): Record<string, string> {
  return { 'x-should-retry': status === 413 ? 'false' : 'true' };
}
