import { describe, expect, it } from 'vitest';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolUseBlock } from '../model/messages.js';
import { editsOf, heredocWrites, searchOf } from './tool-edits.js';

const write = (path: string, newText: string) => ({ path, oldText: '', newText, whole: true });

describe('heredocWrites', () => {
  it('reads the files a command writes whole with a heredoc, in each way of writing one', () => {
    expect(heredocWrites("cat <<'EOF' > a.py\nx = 1\nEOF")).toEqual([write('a.py', 'x = 1')]);
    expect(heredocWrites('cat > "dir/b.go" << END\npackage b\n\nEND\ngo build ./...')).toEqual([
      write('dir/b.go', 'package b\n'),
    ]);
    expect(heredocWrites('tee c.txt > /dev/null <<-"EOF"\n\tone\n\tEOF')).toEqual([write('c.txt', '\tone')]);
  });

  it('leaves out appends, a heredoc into a program, and one that never ends', () => {
    expect(heredocWrites('cat >> log.txt <<EOF\nmore\nEOF')).toEqual([]);
    expect(heredocWrites("python3 - <<'EOF'\nprint(1)\nEOF")).toEqual([]);
    expect(heredocWrites("cat <<'EOF' > a.py\nx = 1")).toEqual([]);
  });
});

describe('searchOf', () => {
  const bash = (command: string) => ({
    type: 'tool_use' as const,
    id: 'c',
    name: 'bash',
    input: { command },
  });

  it('names the one file a shell search reads, past flags and redirects', () => {
    expect(
      searchOf(bash('grep -n "tzname" a/ops.py 2>/dev/null'), 'grep -n "tzname" a/ops.py 2>/dev/null'),
    ).toEqual({
      pattern: 'tzname',
      file: 'a/ops.py',
    });
    expect(searchOf(bash('grep -rn tzname a b'), 'grep -rn tzname a b')).toEqual({ pattern: 'tzname' });
    expect(searchOf(bash('grep -n tz *.py'), 'grep -n tz *.py')).toEqual({ pattern: 'tz' });
    expect(searchOf(bash('nl -ba f | grep -n tz'), 'nl -ba f | grep -n tz')).toEqual({
      pattern: 'tz',
      piped: true,
    });
  });

  it('tells a search of piped text from one of files', () => {
    const of = (command: string) => searchOf(bash(command), command);
    expect(of('go test ./... 2>&1 | grep -E "FAIL|panic"')).toEqual({ pattern: 'FAIL|panic', piped: true });
    expect(of('go test ./... 2>&1 | rg FAIL')).toEqual({ pattern: 'FAIL', piped: true });
    // A recursive grep and git grep search files whatever is piped to them; so does one given a file.
    expect(of('true | grep -rn FAIL')).toEqual({ pattern: 'FAIL' });
    expect(of('true | git grep FAIL')).toEqual({ pattern: 'FAIL' });
    expect(of('true | grep FAIL a.go')).toEqual({ pattern: 'FAIL', file: 'a.go' });
    expect(of('cd /repo && grep -n FAIL')).toEqual({ pattern: 'FAIL' });
  });

  it("takes an option's value after the file for a value, not a second operand", () => {
    const command = 'grep -n "def check_filterable" django/db/models/sql/query.py -A 20';
    expect(searchOf(bash(command), command)).toEqual({
      pattern: 'def check_filterable',
      file: 'django/db/models/sql/query.py',
    });
  });
});

describe("opencode's apply_patch (its GPT models' edit tool)", () => {
  it('reads the patch from `patchText`', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-  return 1;\n+  return 2;\n*** End Patch';
    const call: ToolUseBlock = {
      type: 'tool_use',
      id: 'c',
      name: 'apply_patch',
      input: { patchText: patch },
    };
    expect(toolCallFact(call)).toMatchObject({ kind: 'change', paths: ['src/a.ts'] });
    expect(editsOf(call, undefined)).toHaveLength(1);
  });
});

describe('editsOf an apply_patch that renames a file', () => {
  const patch = (input: string): ToolUseBlock => ({
    type: 'tool_use',
    id: 'p',
    name: 'apply_patch',
    input: { input },
  });

  it('gives the hunks under the old name, then the move to the new one', () => {
    const moved = patch(
      '*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-  return a;\n+  return a + 1;\n*** Update File: src/c.ts\n@@\n-x\n+y\n*** End Patch',
    );
    expect(editsOf(moved, undefined)).toEqual([
      { path: 'src/a.ts', oldText: '  return a;', newText: '  return a + 1;', whole: false },
      { path: 'src/a.ts', oldText: '', newText: '', whole: false, movedTo: 'src/b.ts' },
      { path: 'src/c.ts', oldText: 'x', newText: 'y', whole: false },
    ]);
    // A rename alone, the patch's last file, no `*** End Patch`.
    expect(editsOf(patch('*** Update File: src/a.ts\n*** Move to: src/b.ts'), undefined)).toEqual([
      { path: 'src/a.ts', oldText: '', newText: '', whole: false, movedTo: 'src/b.ts' },
    ]);
  });
});

describe('editsOf an apply_patch with a hunk of context lines alone', () => {
  it('gives no edit for the hunk that only moves the place, the next hunk as written', () => {
    const call: ToolUseBlock = {
      type: 'tool_use',
      id: 'p',
      name: 'apply_patch',
      input: {
        input:
          '*** Begin Patch\n*** Update File: src/a.go\n@@\n func first() {\n@@\n }\n+\n+func added() {}\n*** End Patch',
      },
    };
    expect(editsOf(call, undefined)).toEqual([
      { path: 'src/a.go', oldText: '}', newText: '}\n\nfunc added() {}', whole: false },
    ]);
  });
});
