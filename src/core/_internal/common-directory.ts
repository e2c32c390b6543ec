/**
 * The directory every path starts with (ending in `/`), so long absolute paths are written once;
 * empty for fewer than two paths, and when that directory is the root alone: `/Users/…` written as
 * `Users/…` under "/" reads as a relative path and saves one character.
 */
export function commonDirectory(paths: readonly string[]): string {
  if (paths.length < 2) return '';
  let prefix = paths[0]!;
  for (const path of paths) {
    while (!path.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  const directory = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  return directory === '/' ? '' : directory;
}
