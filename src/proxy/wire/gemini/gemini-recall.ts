/**
 * `--recall` on the Gemini API: the `recall` function declaration, the model's `functionCall`
 * parts in an answer (plain, or the chunks of `:streamGenerateContent?alt=sse`), and the follow-up
 * request whose `functionResponse` parts carry the recalled text. Gemini answers carry no block
 * indexes, so a follow-up's chunks continue the client's stream as they come.
 */
import { geminiFieldName, partsSpelledLike } from 'agent-compact/internal';
import { recallTool } from 'agent-compact/recall';
import type { GeminiPart } from 'agent-compact/wire';
import { unchangedEvent } from '../../recall/recall-json.js';
import {
  type JsonRecord,
  RECALL_TOOL_NAME,
  type RecallWire,
  type StreamAssembler,
  type ToolCall,
} from '../../recall/recall-wire.js';
import { rewriteEvent, type SseEvent } from '../../recall/sse-events.js';

/** Prefix of the id given to a recall call that came without one (never sent back). */
const SYNTHETIC_ID_PREFIX = 'agent-compact-recall-';

export const geminiRecall: RecallWire = {
  format: 'gemini',
  // Gemini says it in the method (`:streamGenerateContent`), not in the body.
  isStreamed: (url) => url.pathname.endsWith(':streamGenerateContent'),
  withRecallTool: geminiToolsWithRecall,
  declaredNames: geminiDeclaredNames,
  toolCalls: geminiCalls,
  forbidToolCalls: geminiForbidToolCalls,
  withoutRecallCalls: geminiWithoutRecall,
  followUp: geminiFollowUp,
  answerItems: (answer) => [{ role: 'model', parts: partsOf(answer) }],
  isAnswerItem: (item) => (item as JsonRecord | null)?.role === 'model',
  createAssembler: geminiAssembler,
  withoutRecallEvents: geminiEventsWithoutRecall,
  opensIndex: () => false,
  // Chunks carry no indexes: a follow-up's continue the stream as they are.
  continuedEvent: unchangedEvent,
};

/**
 * The body with function calls forbidden (mode `NONE`, which takes no allowed names), written into
 * `toolConfig` or `tool_config` and its calling config as the client named them.
 */
function geminiForbidToolCalls(body: JsonRecord): JsonRecord {
  const configName = geminiFieldName(body, 'toolConfig');
  const config = body[configName] as JsonRecord | undefined;
  const callingName = geminiFieldName(config, 'functionCallingConfig');
  return { ...body, [configName]: { ...config, [callingName]: { mode: 'NONE' } } };
}

/**
 * The field a tools entry lists its functions in (`functionDeclarations`, or the proto's
 * `function_declarations`, which the REST API reads too), when it lists any.
 */
function declarationsField(tool: unknown): string | undefined {
  const field = geminiFieldName(tool, 'functionDeclarations');
  return Array.isArray((tool as JsonRecord | null)?.[field]) ? field : undefined;
}

/**
 * The tools with `recall` declared: beside the client's first function declarations (in the field
 * it wrote them in, so the entry names no field twice), else on its own.
 */
function geminiToolsWithRecall(tools: readonly unknown[]): unknown[] {
  const { name, description, inputSchema: parameters } = recallTool;
  const declaration = { name, description, parameters };
  const at = tools.findIndex((tool) => declarationsField(tool) !== undefined);
  if (at === -1) return [...tools, { functionDeclarations: [declaration] }];
  return tools.map((tool, index) => {
    const field = declarationsField(tool);
    if (index !== at || field === undefined) return tool;
    const record = tool as JsonRecord;
    return { ...record, [field]: [...(record[field] as unknown[]), declaration] };
  });
}

/** The function names a Gemini tools entry declares, in the field it lists them in. */
function geminiDeclaredNames(tool: unknown): unknown[] {
  const field = declarationsField(tool);
  const declarations = field === undefined ? [] : ((tool as JsonRecord)[field] as unknown[]);
  return declarations.map((declaration) => (declaration as JsonRecord | null)?.name);
}

/** The answer's function calls, each with an id (a made-up one when the call has none). */
function geminiCalls(answer: JsonRecord): ToolCall[] {
  return partsOf(answer).flatMap((part, index) => {
    const call = part.functionCall;
    if (!call) return [];
    return [{ id: call.id ?? `${SYNTHETIC_ID_PREFIX}${index}`, name: call.name, input: call.args ?? {} }];
  });
}

/** The answer without its recall calls. */
function geminiWithoutRecall(answer: JsonRecord): JsonRecord {
  return withParts(
    answer,
    partsOf(answer).filter((part) => !isRecallPart(part)),
  );
}

/**
 * The follow-up contents: the model's turn with its recall calls (thought signatures and all, as
 * the API wants them back), then one `functionResponse` per call; both in the client's spelling
 * (`function_response` for a client that writes proto names), as the request's other parts are.
 */
function geminiFollowUp(
  contents: readonly unknown[],
  answer: JsonRecord,
  results: readonly { id: string; output: string }[],
): unknown[] {
  const parts = partsOf(answer).filter((part) => !part.functionCall || isRecallPart(part));
  const responses = results.map((result) => ({
    functionResponse: {
      ...(result.id.startsWith(SYNTHETIC_ID_PREFIX) ? {} : { id: result.id }),
      name: RECALL_TOOL_NAME,
      response: { output: result.output },
    },
  }));
  return [
    ...contents,
    { role: 'model', parts: partsSpelledLike(contents, parts) },
    { role: 'user', parts: partsSpelledLike(contents, responses) },
  ];
}

/** Collects a streamed Gemini answer as the plain answer it adds up to. */
function geminiAssembler(): StreamAssembler {
  const parts: GeminiPart[] = [];
  let last: JsonRecord = {};
  let recallStarted = false;
  return {
    add({ data }) {
      if (!data) return;
      last = data;
      for (const part of partsOf(data)) {
        parts.push(part);
        if (isRecallPart(part)) recallStarted = true;
      }
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      return withParts(last, parts);
    },
  };
}

/** Held chunks with their recall calls taken out; a chunk left with nothing to say is dropped. */
function geminiEventsWithoutRecall(events: readonly SseEvent[]): SseEvent[] {
  return events.flatMap((event) => {
    const { data } = event;
    if (!data || !partsOf(data).some(isRecallPart)) return [event];
    const kept = geminiWithoutRecall(data);
    const candidate = firstCandidate(kept);
    if (partsOf(kept).length === 0 && !candidate?.finishReason && !kept.usageMetadata) return [];
    return [{ ...event, raw: rewriteEvent(event, kept), data: kept }];
  });
}

function isRecallPart(part: GeminiPart): boolean {
  return part.functionCall?.name === RECALL_TOOL_NAME;
}

function firstCandidate(answer: JsonRecord): JsonRecord | undefined {
  const [candidate] = Array.isArray(answer.candidates) ? answer.candidates : [];
  return typeof candidate === 'object' && candidate !== null ? (candidate as JsonRecord) : undefined;
}

function partsOf(answer: JsonRecord): GeminiPart[] {
  const parts = (firstCandidate(answer)?.content as { parts?: unknown } | undefined)?.parts;
  return Array.isArray(parts) ? parts.filter((part) => typeof part === 'object' && part !== null) : [];
}

/** The answer with other parts in its first candidate. */
function withParts(answer: JsonRecord, parts: GeminiPart[]): JsonRecord {
  const candidates = Array.isArray(answer.candidates) ? answer.candidates : [{}];
  const [first, ...rest] = candidates as JsonRecord[];
  const content = { role: 'model', ...((first?.content as JsonRecord | undefined) ?? {}), parts };
  return { ...answer, candidates: [{ ...first, content }, ...rest] };
}
