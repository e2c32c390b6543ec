/**
 * `--recall` on OpenAI Chat Completions: `tool_calls` on the first choice's message, `role: "tool"`
 * follow-ups, and chunks whose call parts are numbered by `index` (only the first part names the call).
 */
import { recallTool } from 'agent-compact/recall';
import { closedUp, withData } from '../../recall/held-events.js';
import { arrayOf, parseArguments, streamedInBody, unchangedEvent } from '../../recall/recall-json.js';
import {
  type JsonRecord,
  RECALL_TOOL_NAME,
  type RecallWire,
  type StreamAssembler,
} from '../../recall/recall-wire.js';
import type { SseEvent } from '../../recall/sse-events.js';

const isRecallCall = (call: JsonRecord) => (call.function as { name?: unknown })?.name === RECALL_TOOL_NAME;

export const openAIChatRecall: RecallWire = {
  format: 'openai',
  isStreamed: streamedInBody,
  withRecallTool(tools) {
    const { name, description, inputSchema: parameters } = recallTool;
    return [...tools, { type: 'function', function: { name, description, parameters } }];
  },
  // A custom tool (`{ type: 'custom', custom: { name } }`) is declared by name too.
  declaredNames: (tool) => {
    const declared = tool as { function?: { name?: unknown }; custom?: { name?: unknown } } | null;
    return [declared?.function?.name, declared?.custom?.name];
  },
  toolCalls: (answer) =>
    arrayOf(firstMessage(answer)?.tool_calls).map((call) => {
      const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown };
      return { id: String(call.id), name: fn.name, input: parseArguments(fn.arguments) };
    }),
  forbidToolCalls: (body) => ({ ...body, tool_choice: 'none' }),
  withoutRecallCalls(answer) {
    const choices = arrayOf(answer.choices).map((choice, index) => {
      if (index !== 0) return choice;
      const message = (choice.message ?? {}) as JsonRecord;
      const calls = arrayOf(message.tool_calls).filter((call) => !isRecallCall(call));
      return { ...choice, message: { ...message, tool_calls: calls } };
    });
    return { ...answer, choices };
  },
  followUp(conversation, answer, results) {
    const message = firstMessage(answer) ?? {};
    const calls = arrayOf(message.tool_calls).filter(isRecallCall);
    const assistant = {
      role: 'assistant',
      content: message.content ?? null,
      // A thinking model that called a tool wants its reasoning back (DeepSeek: 400 without it).
      ...(typeof message.reasoning_content === 'string'
        ? { reasoning_content: message.reasoning_content }
        : {}),
      tool_calls: calls,
    };
    const tools = results.map((result) => ({
      role: 'tool',
      tool_call_id: result.id,
      content: result.output,
    }));
    return [...conversation, assistant, ...tools];
  },
  answerItems(answer) {
    const { tool_calls: calls, ...message } = firstMessage(answer) ?? {};
    const called = arrayOf(calls);
    // The API refuses an empty `tool_calls` list.
    return [{ ...message, role: 'assistant', ...(called.length > 0 ? { tool_calls: called } : {}) }];
  },
  isAnswerItem: (item) => (item as JsonRecord | null)?.role === 'assistant',
  createAssembler: chatAssembler,
  withoutRecallEvents: chatWithoutRecall,
  opensIndex: () => false,
  continuedEvent: unchangedEvent,
};

function firstMessage(answer: JsonRecord): JsonRecord | undefined {
  return arrayOf(answer.choices)[0]?.message as JsonRecord | undefined;
}

function chatAssembler(): StreamAssembler {
  let content = '';
  let reasoning: string | undefined;
  const calls: { id?: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  let recallStarted = false;
  return {
    add({ data }) {
      const delta = (data?.choices as { delta?: JsonRecord }[] | undefined)?.[0]?.delta;
      if (!delta) return;
      if (typeof delta.content === 'string') content += delta.content;
      if (typeof delta.reasoning_content === 'string')
        reasoning = (reasoning ?? '') + delta.reasoning_content;
      for (const part of (delta.tool_calls as JsonRecord[] | undefined) ?? []) {
        const index = typeof part.index === 'number' ? part.index : calls.length;
        calls[index] ??= { type: 'function', function: { name: '', arguments: '' } };
        const call = calls[index];
        const fn = (part.function ?? {}) as { name?: string; arguments?: string };
        if (typeof part.id === 'string') call.id = part.id;
        if (fn.name) call.function.name += fn.name;
        if (fn.arguments) call.function.arguments += fn.arguments;
        if (call.function.name === RECALL_TOOL_NAME) recallStarted = true;
      }
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      const message = {
        role: 'assistant',
        content: content === '' ? null : content,
        ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
        tool_calls: calls.filter(Boolean),
      };
      return { choices: [{ index: 0, message }] };
    },
  };
}

type ChatCallPart = { index?: unknown; function?: { name?: unknown } };

/** Chat chunks: a call's parts share its `index`; the recall's go, later indexes move down. */
function chatWithoutRecall(events: readonly SseEvent[]): SseEvent[] {
  const names = new Map<number, string>();
  for (const { data } of events) {
    for (const part of chatParts(data)) {
      if (typeof part.index !== 'number') continue;
      const name = part.function?.name;
      if (typeof name === 'string') names.set(part.index, (names.get(part.index) ?? '') + name);
    }
  }
  const recall = new Set([...names].filter(([, name]) => name === RECALL_TOOL_NAME).map(([index]) => index));
  if (recall.size === 0) return [...events];
  return events.map((event) => {
    const parts = chatParts(event.data);
    if (parts.length === 0 || !event.data) return event;
    const kept = parts
      .filter((part) => typeof part.index !== 'number' || !recall.has(part.index))
      .map((part) =>
        typeof part.index === 'number' ? { ...part, index: closedUp(part.index, recall) } : part,
      );
    const [choice, ...rest] = event.data.choices as JsonRecord[];
    const { tool_calls: _calls, ...delta } = (choice?.delta ?? {}) as JsonRecord;
    const newDelta = kept.length > 0 ? { ...delta, tool_calls: kept } : delta;
    return withData(event, { ...event.data, choices: [{ ...choice, delta: newDelta }, ...rest] });
  });
}

function chatParts(data: JsonRecord | undefined): ChatCallPart[] {
  const delta = (data?.choices as { delta?: { tool_calls?: unknown } }[] | undefined)?.[0]?.delta;
  return Array.isArray(delta?.tool_calls) ? (delta.tool_calls as ChatCallPart[]) : [];
}
