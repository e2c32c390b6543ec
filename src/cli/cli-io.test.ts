import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handleOutputErrors } from './cli-io.js';

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('handleOutputErrors', () => {
  it('says a failed write to stdout in one line and exits 2, once', () => {
    const stdout = new EventEmitter();
    const said: string[] = [];
    const exits: number[] = [];
    handleOutputErrors(stdout, { stderr: (text) => said.push(text), exit: (code) => exits.push(code) });
    stdout.emit('error', errno('ENOSPC', 'ENOSPC: no space left on device, write'));
    stdout.emit('error', errno('ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed'));
    expect(said).toEqual([
      'agent-compact: cannot write the output: ENOSPC: no space left on device, write\n',
    ]);
    expect(exits).toEqual([2]);
  });

  it('lets a reader that went away (EPIPE) stop the output, and the command end as it would', () => {
    const stdout = new EventEmitter();
    const said: string[] = [];
    const exits: number[] = [];
    handleOutputErrors(stdout, { stderr: (text) => said.push(text), exit: (code) => exits.push(code) });
    stdout.emit('error', errno('EPIPE', 'write EPIPE'));
    expect([said, exits]).toEqual([[], []]);
  });
});

describe('the built bin writing to a stdout that fails', () => {
  const bin = join(import.meta.dirname, '../../dist/cli/bin.js');
  const example = join(import.meta.dirname, '../../examples/session.jsonl');

  it.skipIf(!existsSync(bin) || !existsSync('/dev/full'))(
    'a full device: one line, exit 2, no stack trace',
    async () => {
      const child = spawn(process.execPath, [bin, 'count', example], {
        stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = await once(child, 'close');
      expect(code).toBe(2);
      expect(stderr).toBe('agent-compact: cannot write the output: ENOSPC: no space left on device, write\n');
    },
  );

  it.skipIf(!existsSync(bin))('a reader that closed its end (| head): no stack trace', async () => {
    const child = spawn(process.execPath, [bin, 'validate', example], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the command writes.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'close');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
