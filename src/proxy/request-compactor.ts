/**
 * The one thing the proxy needs from the library: compact a whole request body of one session,
 * with the core's `createCompactor(...).compactRequest`.
 */
import type {
  ArchiveStore,
  CompactionLayer,
  CompactorOptions,
  ProviderUsage,
  SummaryModel,
} from 'agent-compact';
import { createCompactor } from 'agent-compact';
import type { WireFormat } from 'agent-compact/wire';

/** What compacting one request returns; `body` is the input object itself when nothing changed. */
export interface RequestCompaction {
  body: Record<string, unknown>;
  layer: CompactionLayer;
  tokensBefore: number;
  tokensAfter: number;
  archived: string[];
}

/** Compacts the requests of one session. */
export interface RequestCompactor {
  /** Where the session's removed content is kept, for recall. */
  readonly archive: ArchiveStore;
  /** The session's id in the archive. */
  readonly sessionId: string;
  compactRequest(
    body: Record<string, unknown>,
    options: {
      format: WireFormat;
      usage?: ProviderUsage;
      signal?: AbortSignal;
      summarizer?: SummaryModel;
      /** Leave out every thinking block (`MaybeCompactOptions.resetThinking`). */
      resetThinking?: boolean;
    },
  ): Promise<RequestCompaction>;
}

/** A compactor for one session's requests. */
export function createRequestCompactor(options: CompactorOptions): RequestCompactor {
  const compactor = createCompactor(options);
  return {
    archive: compactor.archive,
    sessionId: compactor.sessionId,
    async compactRequest(body, { format, usage, signal, summarizer, resetThinking }) {
      const result = await compactor.compactRequest(body, {
        format,
        ...(resetThinking ? { resetThinking } : {}),
        ...(usage ? { usage } : {}),
        ...(signal ? { signal } : {}),
        ...(summarizer ? { summarizer } : {}),
      });
      const { layer, tokensBefore, tokensAfter, archived } = result;
      return { body: result.body, layer, tokensBefore, tokensAfter, archived };
    },
  };
}
