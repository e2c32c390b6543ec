import { describe, expect, it } from 'vitest';
import { shortenCommand } from './shorten-command.js';

describe('shortenCommand', () => {
  it('keeps a command that fits as written, on one line', () => {
    expect(shortenCommand('go test ./...\n  -run TestSync', 80)).toBe('go test ./... -run TestSync');
  });

  it('keeps the start and the end of a longer line, so reads of two files differ', () => {
    const command =
      "sed -n '1,220p' $(go env GOMODCACHE)/github.com/go-git/go-git/v5@v5.17.0/plumbing/protocol/packp/uppackreq.go";
    const short = shortenCommand(command, 81);
    expect(short).toHaveLength(81);
    expect(short.startsWith("sed -n '1,220p' $(go env GOMODCACHE)/github.com/")).toBe(true);
    expect(short.endsWith('/packp/uppackreq.go')).toBe(true);
    expect(shortenCommand(command.replace('uppackreq.go', 'advrefs.go'), 81)).not.toBe(short);
  });
});
