import { describe, expect, it } from 'vitest';
import { removedFiles } from '../ledger/removed-files.js';
import type { Message } from '../model/messages.js';
import { call, numbered, record } from './__fixtures__/tool-calls.js';

describe('removedFiles', () => {
  it.each([
    ['rm reproduce.py check.py', ['reproduce.py', 'check.py']],
    ['rm -f /repo/a.py 2>/dev/null', ['/repo/a.py']],
    ['rm -rf build > /dev/null', ['build']],
    ['python run.py && rm -- -odd.py', ['-odd.py']],
    ['git rm -q src/old.ts', ['src/old.ts']],
    ['rm "dir/a b.py"', ['dir/a b.py']],
  ])('reads the files %j removes', (command, files) => {
    expect(removedFiles(command)).toEqual(files);
  });

  it.each([
    'git rm --cached src/a.ts',
    'rm *.pyc',
    'rm "$tmp"',
    "echo 'rm a.py'",
    "grep -n 'rm ' a.py",
    "cat > clean.sh <<'EOF'\nrm -rf build\nEOF\nchmod +x clean.sh",
  ])('reads no removal in %j', (command) => {
    expect(removedFiles(command)).toEqual([]);
  });
});

describe('a file removed', () => {
  const write = call(
    'bash',
    { command: "cat <<'EOF' > reproduce.py\ndef check():\n    return 1\nEOF\npython reproduce.py" },
    '<returncode>0</returncode>\n<output>\n</output>',
  );
  const paths = (messages: Message[]) => record(messages).workingSet.state.files.map((file) => file.path);
  const bash = (command: string, code: number) =>
    call('bash', { command }, `<returncode>${code}</returncode>\n<output>\n</output>`);

  it('by a shell `rm` that ran is gone from the working set; one that failed is not', () => {
    expect(paths(write)).toEqual(['reproduce.py']);
    expect(paths([...write, ...bash('rm reproduce.py', 0)])).toEqual([]);
    expect(paths([...write, ...bash('rm -rf ./', 0)])).toEqual(['reproduce.py']);
    expect(paths([...write, ...bash('rm reproduce.py', 1)])).toEqual(['reproduce.py']);
  });

  it('with the folder it is in, by `rm -r`', () => {
    const read = call('Read', { file_path: '/repo/tmp/a.py' }, numbered('def a():\n    pass'));
    expect(paths([...read, ...bash('rm -r /repo/tmp/', 0)])).toEqual([]);
    expect(paths([...read, ...bash('rm -r /repo/tm', 0)])).toEqual(['/repo/tmp/a.py']);
  });

  it("by a patch's `*** Delete File:` is gone from the working set", () => {
    const remove = call(
      'apply_patch',
      { input: '*** Begin Patch\n*** Delete File: reproduce.py\n*** End Patch' },
      'Success.',
    );
    expect(paths([...write, ...remove])).toEqual([]);
  });

  it('not by a patch that deletes it and adds it again (a rewrite whole)', () => {
    const rewrite = call(
      'apply_patch',
      {
        input:
          '*** Begin Patch\n*** Delete File: reproduce.py\n*** Add File: reproduce.py\n+def check():\n+    return 2\n*** End Patch',
      },
      'Success.',
    );
    expect(paths([...write, ...rewrite])).toEqual(['reproduce.py']);
  });
});
