/** Field checks every request reader shares; each failure is `UNREADABLE_INPUT` at the field's path. */
import { CompactError } from '../model/errors.js';
import type { ToolDefinition } from '../model/request.js';
import { isPlainObject, typeName } from './request-format.js';

/** The request's tool definitions, each checked to be an object. */
export function readTools(tools: unknown): readonly ToolDefinition[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  const definitions = expectArray(tools, 'tools');
  definitions.forEach((tool, index) => {
    if (!isPlainObject(tool))
      throw unreadable(`expected a tool object, got ${typeName(tool)}`, `tools[${index}]`);
  });
  return definitions as ToolDefinition[];
}

export function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw unreadable(`expected an array, got ${typeName(value)}`, path);
  return value;
}

export function unreadable(message: string, path: string): CompactError {
  return new CompactError(message, { code: 'UNREADABLE_INPUT', path });
}
