/**
 * Retention: how much of what the tool calls returned a request still shows. Every call whose
 * result the original transcript had counts; a call kept whole shows all its key facts, a call
 * compacted away shows those still visible as text (see `key-facts.ts`).
 */

import type { Message, ToolResultBlock, ToolUseBlock } from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import {
  extractKeyFacts,
  isFactVisible,
  type KeyFact,
  type KeyFactKind,
  requestText,
  toolResultText,
} from './key-facts.js';
import type { SentRequest } from './prompt-cache.js';

export interface ToolCall {
  toolUseId: string;
  /** Index of the message holding the result. */
  resultIndex: number;
  resultText: string;
  facts: KeyFact[];
}

/** Every answered tool call of the transcript with its key facts. */
export function toolCallsOf(messages: readonly Message[]): ToolCall[] {
  const uses = new Map<string, ToolUseBlock>();
  const calls: ToolCall[] = [];
  messages.forEach((message, index) => {
    for (const block of contentBlocks(message)) {
      if (block.type === 'tool_use') uses.set(String(block.id), block as ToolUseBlock);
      else if (block.type === 'tool_result') {
        const result = block as ToolResultBlock;
        const use = uses.get(result.tool_use_id);
        if (!use) continue;
        calls.push({
          toolUseId: result.tool_use_id,
          resultIndex: index,
          resultText: toolResultText(result),
          facts: extractKeyFacts(use, result),
        });
      }
    }
  });
  return calls;
}

/** What {@link measureRetention} found in one request. */
export interface RetentionMeasure {
  /** Calls whose original result is no longer in the request. */
  compactedCalls: number;
  /** Key facts of every call. */
  facts: number;
  /** Of those, visible (a call kept whole shows all its facts). */
  factsVisible: number;
  /** Key facts of the compacted-away calls. */
  compactedFacts: number;
  /** Of those, visible. */
  compactedFactsVisible: number;
  /** Compacted-away facts per kind. */
  factsByKind: Record<KeyFactKind, { facts: number; visible: number }>;
}

/** Retention of the given calls in one request (see the module comment). */
export function measureRetention(calls: readonly ToolCall[], request: SentRequest): RetentionMeasure {
  const present = new Map<string, string[]>();
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) {
      if (block.type !== 'tool_result') continue;
      const result = block as ToolResultBlock;
      const texts = present.get(result.tool_use_id) ?? [];
      texts.push(toolResultText(result));
      present.set(result.tool_use_id, texts);
    }
  }
  let text: string | undefined;
  const measure: RetentionMeasure = {
    compactedCalls: 0,
    facts: 0,
    factsVisible: 0,
    compactedFacts: 0,
    compactedFactsVisible: 0,
    factsByKind: emptyFactsByKind(),
  };
  for (const call of calls) {
    measure.facts += call.facts.length;
    if (present.get(call.toolUseId)?.includes(call.resultText)) {
      measure.factsVisible += call.facts.length;
      continue;
    }
    measure.compactedCalls++;
    text ??= requestText(request.system, request.messages);
    for (const fact of call.facts) {
      measure.compactedFacts++;
      measure.factsByKind[fact.kind].facts++;
      if (isFactVisible(fact, text)) {
        measure.factsVisible++;
        measure.compactedFactsVisible++;
        measure.factsByKind[fact.kind].visible++;
      }
    }
  }
  return measure;
}

export function emptyFactsByKind(): Record<KeyFactKind, { facts: number; visible: number }> {
  return {
    argument: { facts: 0, visible: 0 },
    'exit-code': { facts: 0, visible: 0 },
    'error-line': { facts: 0, visible: 0 },
  };
}
