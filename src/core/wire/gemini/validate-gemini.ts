/**
 * The Gemini API's rules for `contents`, with paths into the request itself
 * (`contents[4].parts[1]`). Never throws: anything it cannot read becomes a problem. A part's
 * fields are read under their JSON or proto names (`function_response`), as the API reads them.
 */
import type { ValidationProblem } from '../../model/problems.js';
import { isRecord } from '../_internal/validate-helpers.js';
import { dataFieldOf, geminiField, geminiJsonName, hasGeminiField } from './gemini-field-names.js';
import { GEMINI_DATA_FIELDS } from './gemini-types.js';

/** Part fields that describe the data field beside them rather than carry data (JSON names). */
const metadataFields = new Set([
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
]);

interface Call {
  id: string | undefined;
  name: string;
  path: string;
}

/**
 * Checks Gemini `contents` against the API's rules: an array of `user` / `model` contents whose
 * parts (at least one) hold exactly one known data field; calls only in model turns and responses only in user
 * turns; every `functionResponse` answering a call of the model turn just before it (by `id`, or
 * by name when ids are absent) and every call answered; and, once the conversation carries thought
 * signatures, the first call of every model step in the current turn keeping its signature
 * (`missing-thought-signature`; the API rejects such a request with a 400).
 */
export function validateGeminiContents(contents: unknown, problems: ValidationProblem[]): void {
  if (!Array.isArray(contents)) {
    problems.push(contentsNotArray(contents));
    return;
  }
  let open: Call[] = [];
  contents.forEach((content: unknown, index) => {
    const path = `contents[${index}]`;
    if (!isRecord(content)) {
      problems.push(contentNotObject(path, content));
      open = [];
      return;
    }
    const calls = checkContent(content, path, problems, open);
    reportUnanswered(open, problems);
    open = calls;
  });
  checkSignatures(contents, problems);
}

/**
 * The first problem of `contents` that leaves nothing to read: not an array, a content that is not
 * an object, `parts` that is not an array (the problems the reader throws on). One cheap pass, so a
 * request that is read on every turn is not validated whole on every turn.
 */
export function contentsShapeProblem(contents: unknown): ValidationProblem | undefined {
  if (!Array.isArray(contents)) return contentsNotArray(contents);
  for (let index = 0; index < contents.length; index++) {
    const content: unknown = contents[index];
    if (!isRecord(content)) return contentNotObject(`contents[${index}]`, content);
    if (!Array.isArray(content.parts)) return partsNotArray(`contents[${index}]`, content.parts);
  }
  return undefined;
}

function contentsNotArray(contents: unknown): ValidationProblem {
  return {
    path: 'contents',
    message: `contents must be an array, got ${describe(contents)}`,
    rule: 'messages-not-array',
  };
}

function contentNotObject(path: string, content: unknown): ValidationProblem {
  return { path, message: `content must be an object, got ${describe(content)}`, rule: 'message-not-object' };
}

function partsNotArray(path: string, parts: unknown): ValidationProblem {
  return {
    path: `${path}.parts`,
    message: `parts must be an array, got ${describe(parts)}`,
    rule: 'invalid-content',
  };
}

/** Checks one content; returns the calls it makes (for the next content to answer). */
function checkContent(
  content: Record<string, unknown>,
  path: string,
  problems: ValidationProblem[],
  open: Call[],
): Call[] {
  const { role, parts } = content;
  if (role !== undefined && role !== 'user' && role !== 'model') {
    problems.push({
      path: `${path}.role`,
      message: `role must be "user" or "model", got ${describe(role)}`,
      rule: 'invalid-role',
    });
  }
  if (!Array.isArray(parts)) {
    problems.push(partsNotArray(path, parts));
    return [];
  }
  if (parts.length === 0) {
    // The API's own words: "GenerateContentRequest.contents[1].parts: contents.parts must not be empty".
    problems.push({
      path: `${path}.parts`,
      message: 'contents.parts must not be empty',
      rule: 'empty-content',
    });
    return [];
  }
  const calls: Call[] = [];
  parts.forEach((part: unknown, partIndex) => {
    const partPath = `${path}.parts[${partIndex}]`;
    const field = isRecord(part) ? dataFieldOf(part) : undefined;
    if (!isRecord(part) || field === undefined || !onlyKnownFields(part)) {
      problems.push({
        path: partPath,
        message: `unknown part type: ${describePart(part)}`,
        rule: 'unknown-part-type',
      });
      return;
    }
    if (field === 'functionCall') {
      const call = geminiField(part, 'functionCall');
      if (!isRecord(call) || typeof call.name !== 'string') {
        problems.push({
          path: partPath,
          message: 'functionCall must have a string "name"',
          rule: 'invalid-tool-use',
        });
      } else if (role !== 'model') {
        problems.push({
          path: partPath,
          message: `functionCall "${call.name}" in a user turn`,
          rule: 'tool-use-in-user-message',
        });
      } else {
        calls.push({
          id: typeof call.id === 'string' ? call.id : undefined,
          name: call.name,
          path: partPath,
        });
      }
    }
    if (field === 'functionResponse')
      checkResponse(geminiField(part, 'functionResponse'), { partPath, role, open, problems });
  });
  return calls;
}

function checkResponse(
  response: unknown,
  {
    partPath,
    role,
    open,
    problems,
  }: { partPath: string; role: unknown; open: Call[]; problems: ValidationProblem[] },
): void {
  if (!isRecord(response) || typeof response.name !== 'string' || !isRecord(response.response)) {
    problems.push({
      path: partPath,
      message: 'functionResponse must have a string "name" and an object "response"',
      rule: 'invalid-tool-result',
    });
    return;
  }
  if (role === 'model') {
    problems.push({
      path: partPath,
      message: `functionResponse "${response.name}" in a model turn`,
      rule: 'tool-result-in-assistant-message',
    });
    return;
  }
  const id = typeof response.id === 'string' ? response.id : undefined;
  const index = open.findIndex((call) =>
    id !== undefined && call.id !== undefined ? call.id === id : call.name === response.name,
  );
  if (index === -1) {
    const label = id === undefined ? `"${response.name}"` : `"${response.name}" (id "${id}")`;
    problems.push({
      path: partPath,
      message: `functionResponse ${label} has no matching functionCall in the model turn before it`,
      rule: 'orphan-tool-result',
    });
    return;
  }
  open.splice(index, 1);
}

function reportUnanswered(open: readonly Call[], problems: ValidationProblem[]): void {
  for (const call of open) {
    problems.push({
      path: call.path,
      message: `functionCall "${call.name}" has no functionResponse in the next turn`,
      rule: 'unanswered-tool-use',
    });
  }
}

/**
 * The current turn starts after the last user content holding anything but function responses.
 * When any model content carries a signature, each model step of the current turn must keep the
 * signature on its first functionCall.
 */
function checkSignatures(contents: readonly unknown[], problems: ValidationProblem[]): void {
  const signed = contents.some(
    (content) =>
      isRecord(content) &&
      content.role === 'model' &&
      partsOf(content).some((part) => typeof geminiField(part, 'thoughtSignature') === 'string'),
  );
  if (!signed) return;
  let start = 0;
  contents.forEach((content, index) => {
    if (
      isRecord(content) &&
      content.role !== 'model' &&
      partsOf(content).some((part) => !hasGeminiField(part, 'functionResponse'))
    ) {
      start = index + 1;
    }
  });
  for (let index = start; index < contents.length; index++) {
    const content = contents[index];
    if (!isRecord(content) || content.role !== 'model') continue;
    const parts = partsOf(content);
    const first = parts.findIndex((part) => hasGeminiField(part, 'functionCall'));
    if (first === -1 || typeof geminiField(parts[first]!, 'thoughtSignature') === 'string') continue;
    problems.push({
      path: `contents[${index}].parts[${first}]`,
      message: 'functionCall of the current turn lost its thoughtSignature',
      rule: 'missing-thought-signature',
    });
  }
}

function partsOf(content: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
}

function onlyKnownFields(part: Record<string, unknown>): boolean {
  const data = Object.keys(part)
    .map(geminiJsonName)
    .filter((key) => !metadataFields.has(key));
  return data.length === 1 && (GEMINI_DATA_FIELDS as readonly string[]).includes(data[0]!);
}

function describePart(part: unknown): string {
  if (!isRecord(part)) return describe(part);
  const keys = Object.keys(part).filter((key) => !metadataFields.has(geminiJsonName(key)));
  return keys.length === 0 ? 'no data field' : `fields ${keys.map((key) => `"${key}"`).join(', ')}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
