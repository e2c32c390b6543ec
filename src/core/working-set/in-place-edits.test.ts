import { describe, expect, it } from 'vitest';
import { inPlaceEdits } from '../ledger/in-place-edits.js';

describe('inPlaceEdits', () => {
  it.each([
    ["sed -i 's/a/b/' src/x.py", ['src/x.py']],
    ["sed -i.bak -e 's/a/b/' -e 's/c/d/' x.py y.py", ['x.py', 'y.py']],
    ["sed -ni '/x/p' x.py", ['x.py']],
    [
      "cd /repo && sed -i '1104a\\\n    def f(self):\\\n        return 1' pkg/mod.py && nl -ba pkg/mod.py",
      ['pkg/mod.py'],
    ],
    ['sed -i "s/\\"a b\\"/c/" "dir/a b.py"', ['dir/a b.py']],
    ['sed --in-place=.orig --expression=s/a/b/ x.py', ['x.py']],
  ])('reads the files %j edits', (command, files) => {
    expect(inPlaceEdits(command)).toEqual(files);
  });

  it.each([
    "sed -n '1,20p' x.py",
    "nl -ba x.py | sed -n '10,20p'",
    "grep -n 'sed -i' x.py",
    "echo 'sed -i s/a/b/ x.py'",
  ])('reads no edit in %j', (command) => {
    expect(inPlaceEdits(command)).toEqual([]);
  });
});
