/**
 * One file under two names. Agents mix absolute and relative paths for the same file: Codex edits
 * `/repo/internal/a.go` with `apply_patch` and reads `internal/a.go` with `sed -n` (in `workdir`
 * `/repo`); Claude Code reads `/repo/src/a.ts` with Read and `src/a.ts` with Bash. The working set
 * and files back must see one file there, or the edits never meet the text they change.
 */

/** `path` as seen from `directory` (an absolute path, Codex's `workdir`), when `path` is relative. */
export function inDirectory(directory: unknown, path: string): string {
  if (typeof directory !== 'string' || !directory.startsWith('/') || path.startsWith('/')) return path;
  const parts: string[] = [];
  for (const part of `${directory}/${path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/**
 * True when `left` and `right` name one file: the same path but for a leading `./`, or an absolute
 * path and a relative one it ends with (`/repo/src/a.ts` and `src/a.ts`). A bare name (`index.ts`)
 * or one going up (`../a.ts`) matches no absolute path: too many files end that way to tell which.
 */
export function sameFile(left: string, right: string): boolean {
  if (left === right) return true;
  const [one, other] = [withoutDotSlash(left), withoutDotSlash(right)];
  if (one === other) return true;
  const oneAbsolute = one.startsWith('/');
  if (oneAbsolute === other.startsWith('/')) return false;
  const [absolute, relative] = oneAbsolute ? [one, other] : [other, one];
  return relative.includes('/') && !relative.startsWith('../') && absolute.endsWith(`/${relative}`);
}

/** Of `names` (oldest first), the latest that names the file `path` names, if any. */
export function latestNameOf(names: Iterable<string>, path: string): string | undefined {
  let found: string | undefined;
  for (const name of names) if (sameFile(name, path)) found = name;
  return found;
}

/** The name to keep of two names of one file: the absolute one, which says more. */
export function fullerPath(known: string, seen: string): string {
  return seen.startsWith('/') && !known.startsWith('/') ? seen : known;
}

function withoutDotSlash(path: string): string {
  return path.startsWith('./') ? path.replace(/^(?:\.\/)+/, '') : path;
}
