/**
 * What the scripted server checks in a Responses request before answering, with the API's own
 * 400 messages where it has one, and what a Responses answer adds (reasoning, echoed fields).
 */

import type { ValidationProblem } from 'agent-compact';
import { validateMessages } from 'agent-compact';
import { invalidRequest, type WireError } from '../../_wire.js';
import type { ResponsesAnswer } from './responses-answer.js';

/** Encrypted reasoning this server hands out starts with this; others' pass unverified. */
export const SCRIPTED_ENCRYPTED_PREFIX = 'enc_scripted_';

type JsonRecord = Record<string, unknown>;

/** The 400 the API sends for a Responses request, or undefined when it would be accepted. */
export function checkResponsesRequest(
  body: JsonRecord,
  validation: 'provider-rules' | 'off',
): WireError | undefined {
  if (typeof body.model !== 'string' || body.model === '') {
    return invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  if (body.input === undefined) {
    return invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  }
  if (validation === 'off') return undefined;
  const [first] = validateMessages(body.input, { format: 'responses' });
  if (first) return invalidRequest(apiMessage(first, body.input), first.path);
  if (!Array.isArray(body.input)) return undefined;
  for (const item of body.input as JsonRecord[]) {
    const content = item.encrypted_content;
    if (item.type === 'reasoning' && typeof content !== 'string' && body.store === false) {
      return { ...notPersisted(item), status: 404 };
    }
    if (item.type !== 'reasoning' || typeof content !== 'string') continue;
    if (content.startsWith(SCRIPTED_ENCRYPTED_PREFIX) && !isGenuine(content)) {
      return invalidRequest(
        `The encrypted content for item ${String(item.id)} could not be verified.`,
        null,
        'invalid_encrypted_content',
      );
    }
  }
  return undefined;
}

/**
 * A reasoning item with neither stored state (`store: false`) nor its encrypted content is only a
 * reference to nothing: the API answers 404 with this message.
 */
function notPersisted(item: JsonRecord): WireError {
  return invalidRequest(
    `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    'input',
  );
}

/** The API's wording for the rules it words itself; `Invalid 'PATH': …` for the rest. */
function apiMessage(problem: ValidationProblem, input: unknown): string {
  const item = itemAt(problem.path, input);
  switch (problem.rule) {
    case 'unanswered-tool-call':
      return `No tool output found for function call ${String(item?.call_id)}.`;
    case 'orphan-tool-message':
      return `No tool call found for function call output with call_id ${String(item?.call_id)}.`;
    case 'misplaced-reasoning':
      return `Item '${String(item?.id)}' of type 'reasoning' was provided without its required following item.`;
    default:
      return `Invalid '${problem.path}': ${problem.message}`;
  }
}

function itemAt(path: string, input: unknown): JsonRecord | undefined {
  const match = /^input\[(\d+)\]/.exec(path);
  if (!match || !Array.isArray(input)) return undefined;
  const item: unknown = input[Number(match[1])];
  return typeof item === 'object' && item !== null ? (item as JsonRecord) : undefined;
}

/**
 * The encrypted content of the reasoning of answer `counter`: derived from the counter alone, so any
 * server instance can tell a genuine one (a recorded session replayed later) from an altered one.
 */
function encryptedReasoning(counter: number): string {
  return `${SCRIPTED_ENCRYPTED_PREFIX}${counter}_${btoa(reasoningSummary(counter))}`;
}

function reasoningSummary(counter: number): string {
  return `Scripted reasoning for request ${counter}.`;
}

function isGenuine(content: string): boolean {
  const match = /^enc_scripted_(\d+)_/.exec(content);
  return match !== null && content === encryptedReasoning(Number(match[1]));
}

/**
 * What a Responses answer adds: the echoed request fields and, when the request asks for reasoning
 * (`reasoning` set or `include: ["reasoning.encrypted_content"]`), a reasoning item — with
 * encrypted content when included, which an altered copy sent back fails to match.
 */
export function responsesExtras(
  body: JsonRecord,
  counter: number,
): Pick<ResponsesAnswer, 'createdAt' | 'echo' | 'reasoning' | 'customTools'> {
  const echo: JsonRecord = {};
  for (const key of ['instructions', 'max_output_tokens', 'reasoning', 'store', 'tools', 'metadata']) {
    if (body[key] !== undefined) echo[key] = body[key];
  }
  const customTools = customToolNames(body);
  const extras: Pick<ResponsesAnswer, 'createdAt' | 'echo' | 'reasoning' | 'customTools'> = {
    createdAt: Math.floor(Date.now() / 1000),
    echo,
    ...(customTools.size > 0 ? { customTools } : {}),
  };
  const include = Array.isArray(body.include) ? body.include : [];
  const encrypted = include.includes('reasoning.encrypted_content');
  if (!encrypted && (typeof body.reasoning !== 'object' || body.reasoning === null)) return extras;
  extras.reasoning = { id: `rs_scripted_${counter}`, summary: reasoningSummary(counter) };
  if (encrypted) extras.reasoning.encryptedContent = encryptedReasoning(counter);
  return extras;
}

/**
 * The `custom` tools a request declares: in `tools`, or (Codex on its default model) in an
 * `additional_tools` input item, either one possibly grouped in `namespace` entries.
 */
function customToolNames(body: JsonRecord): Set<string> {
  const names = new Set<string>();
  const visit = (tools: unknown): void => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as JsonRecord[]) {
      if (tool?.type === 'custom' && typeof tool.name === 'string') names.add(tool.name);
      if (tool?.type === 'namespace') visit(tool.tools);
    }
  };
  visit(body.tools);
  if (Array.isArray(body.input))
    for (const item of body.input as JsonRecord[]) if (item?.type === 'additional_tools') visit(item.tools);
  return names;
}
