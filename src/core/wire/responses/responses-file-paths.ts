/** Where the messages the Responses reader makes came from, in the file's own items. */

import type { ResponsesInput } from '../../conversation/responses-types.js';
import type { MessageSource } from '../_internal/file-paths.js';
import { blocksOfItem, itemsOf, type Side, sideOf, systemBlocksOf } from './responses-format.js';
import { isMessageItem } from './responses-items.js';

/**
 * Where each message `fromResponsesInput` reads came from: its first item, and each block's
 * item (`input[3]`) or message part (`input[3].content[1]`), so a repair's change names the file's.
 */
export function responsesBlockSources(input: ResponsesInput): MessageSource[] {
  if (typeof input === 'string') return [{ message: 'input', blocks: ['input'] }];
  const items = itemsOf(input);
  const sources: MessageSource[] = [];
  const customCalls = new Set<string>();
  let leading = true;
  let previous: Side | undefined;
  for (const [index, item] of items.entries()) {
    if (leading) {
      if (systemBlocksOf(item)) continue;
      leading = false;
    }
    const side = sideOf(item, previous);
    const count = blocksOfItem(item, side, customCalls).length;
    const at = `input[${index}]`;
    const parts = isMessageItem(item) && Array.isArray(item.content) && item.content.length > 0;
    const blocks = Array.from({ length: count }, (_, part) => (parts ? `${at}.content[${part}]` : at));
    const last = sources.at(-1);
    if (last && previous === side) last.blocks.push(...blocks);
    else sources.push({ message: at, blocks });
    previous = side;
  }
  return sources;
}
