/** Anthropic's and OpenAI's SDKs retry an error answer that carries this header (the proxy's own errors do). */
export const RETRY_HEADERS: Readonly<Record<string, string>> = { 'x-should-retry': 'true' };
