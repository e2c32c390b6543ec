/** The conversation of an OpenAI Responses request body. */

import type { ResponsesInput } from '../../conversation/responses-types.js';
import { CompactError } from '../../model/errors.js';
import type { RequestBody, RequestConversation } from '../../model/request.js';
import { expectArray, readTools, unreadable } from '../../request/request-fields.js';
import { isPlainObject, typeName } from '../../request/request-format.js';
import { structuralProblem } from './read-responses.js';
import { fromResponsesInput, toResponsesInput } from './responses-format.js';

/** A Responses request: `instructions` stay in their field, `input` is the conversation. */
export function readResponsesRequest(body: RequestBody): RequestConversation {
  const { input, instructions } = body;
  if (typeof input !== 'string') {
    expectArray(input, 'input').forEach((item, index) => {
      if (!isPlainObject(item))
        throw unreadable(`expected an item object, got ${typeName(item)}`, `input[${index}]`);
    });
    // What the file reader refuses, refused here too, at the same path.
    const problem = structuralProblem(input);
    if (problem) throw unreadable(problem.message, problem.path);
  }
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string') {
    throw unreadable(`expected string, got ${typeName(instructions)}`, 'instructions');
  }
  const { messages, system } = convertResponses(input as ResponsesInput, instructions);
  const tools = readTools(body.tools);
  return {
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools ? { tools } : {}),
    // `instructions` stay in their own field; leading developer messages go back first in `input`.
    write: (compacted) => ({ input: toResponsesInput(compacted, system) }),
  };
}

/** Converts Responses input; items the converter cannot read are `UNREADABLE_INPUT` at `input`. */
function convertResponses(input: ResponsesInput, instructions: string | null | undefined) {
  try {
    return fromResponsesInput(input, { instructions });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CompactError(`cannot read the input items: ${reason}`, {
      code: 'UNREADABLE_INPUT',
      path: 'input',
      cause: error,
    });
  }
}
