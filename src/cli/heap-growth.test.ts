import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, keepHeapNearLive } from './heap-growth.js';

function recorder() {
  const flags: string[] = [];
  return { flags, set: (value: string) => flags.push(value) };
}

describe('keepHeapNearLive', () => {
  it('sets how far V8 grows its heap past what is live', () => {
    const { flags, set } = recorder();
    expect(keepHeapNearLive(['--enable-source-maps'], set)).toBe(true);
    expect(flags).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it.each([['--heap-growing-percent=80'], ['--heap_growing_percent=80'], ['--heap-growing-percent']])(
    'leaves the value the user gave Node (%s)',
    (given) => {
      const { flags, set } = recorder();
      expect(keepHeapNearLive(['--expose-gc', given], set)).toBe(false);
      expect(flags).toEqual([]);
    },
  );
});
