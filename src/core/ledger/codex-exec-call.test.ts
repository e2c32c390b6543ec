import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../model/messages.js';
import { fileReadOf } from '../working-set/file-reads.js';
import { editsOf } from '../working-set/tool-edits.js';
import { codexExecCalls, stringAt } from './codex-exec-call.js';
import { readCodexExecOutput } from './codex-exec-output.js';
import { toolCallFact } from './tool-call-facts.js';

const exec = (code: string): ToolUseBlock => ({
  type: 'tool_use',
  id: 'call_1',
  name: 'exec',
  input: { input: code },
});

describe("a Codex `exec` call's nested calls", () => {
  it('reads the command of an exec_command, as JSON or a JavaScript object', () => {
    const json = exec(
      `text(await tools.exec_command({"cmd":"sed -n '1,20p' src/a.ts","max_output_tokens":10000}));`,
    );
    expect(toolCallFact(json)).toEqual({ kind: 'command', command: "sed -n '1,20p' src/a.ts" });
    expect(fileReadOf(json, toolCallFact(json))).toMatchObject({
      path: 'src/a.ts',
      whole: false,
      firstLine: 1,
    });
    const bare = exec(
      `const r = await tools.exec_command({ workdir: "/repo", cmd: 'rg -n "retry\\\\(" src' });\ntext(r.output);`,
    );
    expect(toolCallFact(bare)).toEqual({ kind: 'command', command: 'rg -n "retry\\(" src' });
  });

  it("reads a read's path in the call's workdir, never in the next call's", () => {
    const read = exec(
      `text(await tools.exec_command({ cmd: "sed -n '1,20p' src/a.ts", workdir: '/repo' }));`,
    );
    expect(codexExecCalls(read)).toEqual([
      {
        type: 'tool_use',
        id: 'call_1',
        name: 'exec_command',
        input: { cmd: "sed -n '1,20p' src/a.ts", workdir: '/repo' },
      },
    ]);
    expect(fileReadOf(read, toolCallFact(read))?.path).toBe('/repo/src/a.ts');
    const next = exec(
      `await tools.exec_command({cmd: "cat src/a.ts"});\nawait tools.exec_command({cmd: "ls", workdir: "/other"});`,
    );
    expect(codexExecCalls(next)?.[0]?.input).toEqual({ cmd: 'cat src/a.ts' });
  });

  it('reads a patch given to apply_patch as a template or a quoted string', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-  return 1;\n+  return 2;\n*** End Patch';
    for (const call of [
      exec(`await tools.apply_patch(\`${patch}\`);`),
      exec(`await tools.apply_patch(${JSON.stringify(patch)});`),
    ]) {
      expect(toolCallFact(call)).toMatchObject({ kind: 'change', paths: ['src/a.ts'] });
      expect(editsOf(call, undefined)).toEqual([
        { path: 'src/a.ts', oldText: '  return 1;', newText: '  return 2;', whole: false },
      ]);
    }
  });

  it('joins several commands, and leaves what it cannot read whole to `other`', () => {
    const two = exec(
      'await tools.exec_command({cmd: "ls"});\nawait tools.exec_command({cmd: "git status"});',
    );
    expect(toolCallFact(two)).toEqual({ kind: 'command', command: 'ls\ngit status' });
    expect(toolCallFact(exec('await tools.exec_command({cmd: base + " -n"});'))).toEqual({ kind: 'other' });
    // A template with a placeholder is computed.
    const placeholder = ['await tools.exec_command({cmd: `cat $', '{file}`});'].join('');
    expect(toolCallFact(exec(placeholder))).toEqual({ kind: 'other' });
    expect(
      codexExecCalls({ type: 'tool_use', id: 'x', name: 'exec_command', input: { cmd: 'ls' } }),
    ).toBeUndefined();
  });

  it('reads string literals with their escapes, and no unfinished one', () => {
    expect(stringAt(`'it\\'s\\n' + x`, 0)).toBe("it's\n");
    expect(stringAt('"a\\"b"', 0)).toBe('a"b');
    expect(stringAt('"open', 0)).toBeUndefined();
    expect(stringAt('x', 0)).toBeUndefined();
  });
});

describe('an exec_command result an exec script printed whole', () => {
  it('gives its output and exit code', () => {
    const text = JSON.stringify({ chunk_id: 'c1', exit_code: 2, output: 'boom\n', wall_time_seconds: 0.1 });
    expect(readCodexExecOutput(text)).toEqual({ output: 'boom\n', exitCode: 2 });
  });
});
