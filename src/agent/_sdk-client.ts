// Plumbing the chat models over the provider SDKs share: loading the SDK on first use and giving
// each call its own abort signal. Internal to ./agent, not exported.
import type OpenAI from 'openai';

/** Retries of the SDK on 429 / 5xx / connection errors (the SDKs' own default). */
export const DEFAULT_SDK_MAX_RETRIES = 2;
/** Per-request timeout in milliseconds (the SDKs' own default, 10 minutes). */
export const DEFAULT_SDK_TIMEOUT_MS = 600_000;

/**
 * The client to call: `client` when the caller gave one, otherwise one built by `load` on the
 * first call. The SDKs are optional peers, so importing a chat model module never needs them.
 */
export function lazyClient<Client>(
  client: Client | undefined,
  load: () => Promise<Client>,
): () => Promise<Client> {
  let clientPromise: Promise<Client> | undefined;
  return () => {
    clientPromise ??= client ? Promise.resolve(client) : load();
    return clientPromise;
  };
}

/** How the OpenAI chat models reach the API. */
export interface OpenAIConnection {
  apiKey: string | undefined;
  baseURL: string | undefined;
  client: OpenAI | undefined;
  maxRetries: number;
  timeoutMs: number;
}

/** The `openai` client of the chat and Responses models: the given one, or one built on first use. */
export function lazyOpenAIClient({
  apiKey,
  baseURL,
  client,
  maxRetries,
  timeoutMs,
}: OpenAIConnection): () => Promise<OpenAI> {
  return lazyClient(client, () =>
    import('openai').then(
      ({ default: OpenAIClient }) => new OpenAIClient({ apiKey, baseURL, maxRetries, timeout: timeoutMs }),
    ),
  );
}

/**
 * Runs one SDK call with a child of the caller's signal. The SDK leaves a listener on the signal it
 * is given; a per-call child keeps the caller's signal (one per agent run, many calls) free of them.
 */
export async function withChildSignal<Result>(
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<Result>,
): Promise<Result> {
  const child = new AbortController();
  const forwardAbort = () => child.abort(signal?.reason);
  if (signal?.aborted) child.abort(signal.reason);
  signal?.addEventListener('abort', forwardAbort, { once: true });
  try {
    return await call(child.signal);
  } finally {
    signal?.removeEventListener('abort', forwardAbort);
  }
}
