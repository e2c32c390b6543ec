/**
 * The flow the Anthropic, Chat Completions and Responses APIs share on the scripted server:
 * screen the request, count it (or only count it), check the window, then answer the script's step
 * with the format's {@link AnswerWriter}.
 */
import { answerMaker, answerStep, requestedMaxTokens } from './_answer-step.js';
import { screenRequest } from './_screen-request.js';
import { type WireError, writeError } from './_wire.js';
import { estimateRequestTokens } from './prompt-usage.js';
import type { RecordedRequest, ResponseOutcome } from './script.js';
import type { AnswerWriter, ScriptedExchange } from './wire/scripted-wire.js';

/** Screens, counts, checks the window, then answers from the script. */
export async function answerRequest(exchange: ScriptedExchange, writer: AnswerWriter): Promise<void> {
  const { incoming, response, rawBody, seen, cache, contextWindow, validation, chooseStep } = exchange;
  const record = (
    body: Record<string, unknown>,
    stream: boolean,
    inputTokens: number,
    outcome: ResponseOutcome,
  ) => exchange.record({ ...seen, body, stream, inputTokens, outcome });
  const fail = (error: WireError) => writeError(response, writer.errorBody, error);
  const countOnly = writer.countPath !== undefined && seen.path === writer.countPath;
  const screened = screenRequest(incoming, { path: seen.path, writer, rawBody, validation, countOnly });
  if (screened.kind === 'reject') {
    record(screened.body, screened.stream, 0, screened.outcome);
    return fail(screened.error);
  }
  const { body, stream } = screened;
  if (countOnly) {
    // Counting neither answers from the script nor touches the prompt cache.
    const inputTokens = estimateRequestTokens(writer.format, body);
    record(body, false, inputTokens, 'count-tokens');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ input_tokens: inputTokens }));
    return;
  }
  const usage = cache.measure(writer.format, body, { reportsWrites: writer.reportsCacheWrites });
  if (contextWindow !== undefined && usage.totalTokens > contextWindow) {
    record(body, stream, usage.totalTokens, 'prompt-too-long');
    return fail(writer.promptTooLong(usage.totalTokens, contextWindow));
  }
  const pending: Omit<RecordedRequest, 'outcome'> = { ...seen, body, stream, inputTokens: usage.totalTokens };
  const step = await chooseStep(pending);
  if (step === undefined) {
    record(body, stream, usage.totalTokens, 'script-exhausted');
    return fail(serverBug(`scripted model server: the script has no step for request #${seen.index}`));
  }
  record(body, stream, usage.totalTokens, step.type);
  const answerNumber = exchange.answerNumber();
  const makeAnswer = answerMaker(writer, body, usage, answerNumber);
  answerStep(response, {
    writer,
    stream,
    step,
    makeAnswer,
    maxTokens: requestedMaxTokens(body),
    answerNumber,
  });
}

/** A 500 that the SDKs do not retry: the script or the server is wrong, not the request. */
export function serverBug(message: string): WireError {
  return {
    status: 500,
    message,
    anthropicType: 'api_error',
    openAIType: 'server_error',
    headers: { 'x-should-retry': 'false' },
  };
}
