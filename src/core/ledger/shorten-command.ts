/**
 * A command on one line within `max` characters, shortened so the agent still recognises it: a
 * line too long loses its middle, keeping how it starts (the program, its options, the start of
 * its path) and how it ends (the file it reads, the pipe). Cutting the end alone left forty
 * `sed -n '1,220p' $(go env GOMODCACHE)/github.com/go-git/…` lines that all read the same.
 *
 * @example
 * shortenCommand("sed -n '1,80p' $(go env GOMODCACHE)/github.com/go-git/go-git/v5/plumbing/format/packfile/encoder.go", 60)
 * // "sed -n '1,80p' $(go env GOMODCACHE)/gith…packfile/encoder.go"
 */
export function shortenCommand(command: string, max: number): string {
  const line = command.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const tail = Math.floor((max - 1) / 3);
  const head = Math.max(0, max - 1 - tail);
  return `${line.slice(0, head)}…${line.slice(line.length - tail)}`;
}
