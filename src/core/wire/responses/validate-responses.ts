/**
 * The OpenAI Responses API's rules for an `input`, with paths into the input itself
 * (`input[4].call_id`). Never throws: anything it cannot read becomes a problem.
 */
import type { ValidationProblem } from '../../model/problems.js';
import { partTypesOf } from './responses-items.js';

type JsonRecord = Record<string, unknown>;

const callOutputOf: Record<string, string> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
};
const outputTypes = new Set(Object.values(callOutputOf));
const messageRoles = new Set<unknown>(['user', 'assistant', 'system', 'developer']);

/** What the checks remember while walking the input. */
interface ResponsesWalk {
  problems: ValidationProblem[];
  /** call_id → path of its call, and which output type answers it. */
  calls: Map<string, { path: string; outputType: string }>;
  /** call_id → path of the output that answered it. */
  answered: Map<string, string>;
  /** An `item_reference` came before: an output may answer a stored call this input does not show. */
  sawReference: boolean;
}

/**
 * Checks a Responses `input` (a string or items) against the API's rules: item shapes, message
 * roles and part types, every `function_call_output` / `custom_tool_call_output` answering an
 * earlier call of its kind (once), every call answered, and every `reasoning` item directly followed
 * by the item it produced (a message or a call).
 */
export function validateResponsesInput(input: unknown, problems: ValidationProblem[]): void {
  if (typeof input === 'string') return;
  if (!Array.isArray(input)) {
    problems.push({
      path: 'input',
      message: `input must be a string or an array of items, got ${describe(input)}`,
      rule: 'messages-not-array',
    });
    return;
  }
  const walk: ResponsesWalk = { problems, calls: new Map(), answered: new Map(), sawReference: false };
  input.forEach((item: unknown, index) => {
    const path = `input[${index}]`;
    if (!isRecord(item)) {
      problems.push(notAnObject(item, path));
      return;
    }
    checkItem(item, path, walk);
    if (item.type === 'reasoning') checkReasoningPlacement(input, index, path, problems);
  });
  for (const [callId, call] of walk.calls) {
    if (walk.answered.has(callId)) continue;
    problems.push({
      path: call.path,
      message: `call ${JSON.stringify(callId)} has no ${call.outputType} after it`,
      rule: 'unanswered-tool-call',
    });
  }
}

/**
 * Checks one item's own shape (its type, role, parts and fields) at `path`, without the rules that
 * pair it with other items (a call and its output, a reasoning item and what follows it): what a
 * reader of items one at a time, such as a Codex rollout's lines, can tell about each.
 */
export function validateResponsesItem(item: unknown, path: string, problems: ValidationProblem[]): void {
  if (!isRecord(item)) {
    problems.push(notAnObject(item, path));
    return;
  }
  // As if a stored item came before: an output alone answers a call this reader has not seen.
  checkItem(item, path, { problems, calls: new Map(), answered: new Map(), sawReference: true });
}

function notAnObject(item: unknown, path: string): ValidationProblem {
  return { path, message: `item must be an object, got ${describe(item)}`, rule: 'message-not-object' };
}

function checkItem(item: JsonRecord, path: string, walk: ResponsesWalk): void {
  const type = item.type;
  if (type === undefined || type === 'message') {
    if (type === undefined && !('role' in item)) checkReference(item, path, walk);
    else checkMessage(item, path, walk.problems);
    return;
  }
  if (typeof type !== 'string') {
    walk.problems.push({
      path: `${path}.type`,
      message: `type must be a string, got ${describe(type)}`,
      rule: 'invalid-item',
    });
    return;
  }
  if (type in callOutputOf) checkCall(item, type, path, walk);
  else if (outputTypes.has(type)) checkOutput(item, type, path, walk);
  else if (type === 'item_reference') checkReference(item, path, walk);
  else if (type === 'reasoning') {
    if (!Array.isArray(item.summary)) missing(walk.problems, path, 'reasoning', 'a summary array');
    checkOptionalString(item, 'encrypted_content', path, walk.problems);
  } else if (type === 'compaction' && typeof item.encrypted_content !== 'string') {
    missing(walk.problems, path, 'compaction', 'a string encrypted_content');
  }
}

function checkMessage(item: JsonRecord, path: string, problems: ValidationProblem[]): void {
  const { role, content } = item;
  if (!messageRoles.has(role)) {
    problems.push({
      path: `${path}.role`,
      message: `role must be one of user, assistant, system, developer; got ${describe(role)}`,
      rule: 'invalid-role',
    });
    return;
  }
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) {
    problems.push({
      path: `${path}.content`,
      message: `content must be a string or an array of parts, got ${describe(content)}`,
      rule: 'invalid-content',
    });
    return;
  }
  const allowed = partTypesOf(role);
  content.forEach((part: unknown, index) => {
    const partPath = `${path}.content[${index}]`;
    if (!isRecord(part) || typeof part.type !== 'string') {
      problems.push({
        path: partPath,
        message: `part must be an object with a string type, got ${describe(part)}`,
        rule: 'invalid-block',
      });
    } else if (!allowed.has(part.type)) {
      problems.push({
        path: `${partPath}.type`,
        message: `a ${String(role)} message cannot hold a ${describe(part.type)} part (allowed: ${[...allowed].join(', ')})`,
        rule: 'invalid-block',
      });
    } else if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string') {
      problems.push({
        path: partPath,
        message: `${part.type} part needs a string text`,
        rule: 'invalid-block',
      });
    }
  });
}

function checkCall(item: JsonRecord, type: string, path: string, walk: ResponsesWalk): void {
  const payload = type === 'function_call' ? 'arguments' : 'input';
  const wrong = ['call_id', 'name', payload].filter((key) => typeof item[key] !== 'string');
  if (wrong.length > 0) {
    walk.problems.push({
      path,
      message: `${type} needs ${wrong.map((key) => `a string ${key}`).join(', ')}`,
      rule: 'invalid-tool-call',
    });
  }
  const callId = item.call_id;
  if (typeof callId !== 'string') return;
  const first = walk.calls.get(callId);
  if (first) {
    walk.problems.push({
      path: `${path}.call_id`,
      message: `call_id ${JSON.stringify(callId)} is already used at ${first.path}`,
      rule: 'duplicate-tool-call-id',
    });
    return;
  }
  walk.calls.set(callId, { path, outputType: callOutputOf[type]! });
}

function checkOutput(item: JsonRecord, type: string, path: string, walk: ResponsesWalk): void {
  const { call_id: callId, output } = item;
  if (typeof output !== 'string' && !Array.isArray(output)) {
    walk.problems.push({
      path: `${path}.output`,
      message: `${type} output must be a string or an array of parts, got ${describe(output)}`,
      rule: 'invalid-tool-message',
    });
  }
  if (typeof callId !== 'string') {
    walk.problems.push({
      path: `${path}.call_id`,
      message: `${type} needs a string call_id, got ${describe(callId)}`,
      rule: 'invalid-tool-message',
    });
    return;
  }
  const quoted = JSON.stringify(callId);
  const call = walk.calls.get(callId);
  if (!call || call.outputType !== type) {
    if (walk.sawReference) return;
    const kind = type === 'function_call_output' ? 'function_call' : 'custom_tool_call';
    walk.problems.push({
      path,
      message: `${type} ${quoted} answers no earlier ${kind}`,
      rule: 'orphan-tool-message',
    });
    return;
  }
  const firstAnswer = walk.answered.get(callId);
  if (firstAnswer !== undefined) {
    walk.problems.push({
      path,
      message: `${type} ${quoted} answers a call already answered at ${firstAnswer}`,
      rule: 'duplicate-tool-message',
    });
  } else {
    walk.answered.set(callId, path);
  }
}

function checkReference(item: JsonRecord, path: string, walk: ResponsesWalk): void {
  walk.sawReference = true;
  if (typeof item.id !== 'string') missing(walk.problems, path, 'item_reference', 'a string id');
}

/** A reasoning item must be followed (after any further reasoning) by the message or call it produced. */
function checkReasoningPlacement(
  input: unknown[],
  index: number,
  path: string,
  problems: ValidationProblem[],
): void {
  let next = index + 1;
  while (isRecord(input[next]) && (input[next] as JsonRecord).type === 'reasoning') next++;
  const following = input[next];
  if (isRecord(following) && producedByModel(following)) return;
  const id = isRecord(input[index]) ? (input[index] as JsonRecord).id : undefined;
  const name = typeof id === 'string' ? ` ${JSON.stringify(id)}` : '';
  const where = following === undefined ? 'ends the input' : `is followed by input[${next}]`;
  problems.push({
    path,
    message: `reasoning item${name} ${where}; it must stay directly before the message or call it produced`,
    rule: 'misplaced-reasoning',
  });
}

function producedByModel(item: JsonRecord): boolean {
  const type = item.type;
  // An item_reference may leave out its type (or send null): an item with no role is one.
  if ((type === undefined || type === null) && !('role' in item)) return true;
  if (type === undefined || type === 'message') return item.role === 'assistant';
  if (type === 'item_reference') return true;
  return typeof type === 'string' && !type.endsWith('_output') && type !== 'mcp_approval_response';
}

function checkOptionalString(
  item: JsonRecord,
  key: string,
  path: string,
  problems: ValidationProblem[],
): void {
  const value = item[key];
  if (value !== undefined && value !== null && typeof value !== 'string') {
    problems.push({
      path: `${path}.${key}`,
      message: `${key} must be a string, got ${describe(value)}`,
      rule: 'invalid-item',
    });
  }
}

function missing(problems: ValidationProblem[], path: string, type: string, what: string): void {
  problems.push({ path, message: `${type} item needs ${what}`, rule: 'invalid-item' });
}

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
