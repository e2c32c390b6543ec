/**
 * The files a search's output names: `path:line:` hits (grep -n, rg, Grep's content mode),
 * `path-line-` context lines around them, `path:text` hits (grep -r without -n), Gemini CLI's `File:` blocks of `L12:` hits, and bare
 * paths (Grep's files mode, `grep -l`), each file once with its first hit.
 */

/** `path:line:` (grep -n, rg, Grep content mode) or `path-line-` (its context lines). */
const hitLine = /^(.+?\.[\w]+)[:-](\d+)([:-])/;
/** `path:text`: a match without its line number (`grep -r` without `-n`); not a count (`path:3`). */
const unnumberedHit = /^([^\s:<>"']+\.\w+):(?!\d+(?:[:-]|$))/;
/** Gemini CLI's `grep_search`: a `File: path` line, then its hits as `L12: text` (`L13- text` around them). */
const fileHeader = /^File: (.+)$/;
const headedHit = /^L(\d+)([:-]) /;
/**
 * A bare path: no spaces, colons, angle brackets (mini-swe-agent's `<returncode>` envelope is none)
 * or quotes (a Go import line a grep of one file printed, `"example.com/app/agent"`).
 */
const pathLine = /^[^\s:<>"']*[/.][^\s:<>"']*$/;
/**
 * A search tool's own words for an empty result (Claude Code's and opencode's Grep and Glob, Gemini
 * CLI's `No matches found for pattern …`, a `Found 0 …` count) and the notes a harness appends to it
 * (a pagination line, a reset shell's directory): not matching lines.
 */
const emptyResultLine =
  /^(?:No (?:matches|files|results) found\b|Found 0 \w|\[Showing results with pagination\b|Shell cwd was reset to )/i;
/** Lines read of a search's output: more is a search too broad to place anything. */
const MAX_LINES = 2000;

/** A file a search found: its path, `path:line` of its first match, and whether a line matched. */
export interface SearchHit {
  path: string;
  hit: string;
  matched: boolean;
}

/** The files `result` names, in the order it names them. */
export function searchHits(result: string): SearchHit[] {
  const found: SearchHit[] = [];
  let header: string | undefined;
  for (const text of result.split('\n', MAX_LINES)) {
    const file = fileHeader.exec(text)?.[1]?.trim();
    if (file) header = file;
    const place: Place | undefined = placeOf(text, header) ?? (file ? { path: file } : bareFile(text));
    if (place === undefined) continue;
    const { path, line } = place;
    const matched = place.matched === true;
    const seen = found.find((entry) => samePath(entry.path, path));
    if (seen === undefined) found.push({ path, hit: line === undefined ? path : `${path}:${line}`, matched });
    else if (matched && !seen.matched)
      Object.assign(seen, { hit: line === undefined ? seen.path : `${seen.path}:${line}`, matched });
  }
  return found;
}

/** Where a line of a search's output points: a file, and the line of a hit in it when it names one. */
interface Place {
  path: string;
  line?: string;
  matched?: boolean;
}

/**
 * A line's hit: `path:line:` (a match) or `path-line-` (a context line), `L12:` under a `File:`
 * line, or `path:text` (a match whose line grep did not number).
 */
function placeOf(text: string, header: string | undefined): Place | undefined {
  const headed = header === undefined ? null : headedHit.exec(text);
  if (headed) return { path: header!, line: headed[1]!, matched: headed[2] === ':' };
  const hit = hitLine.exec(text);
  if (hit) return { path: hit[1]!, line: hit[2]!, matched: hit[3] === ':' };
  const unnumbered = unnumberedHit.exec(text);
  return unnumbered ? { path: unnumbered[1]!, matched: true } : undefined;
}

/** A line that is a path alone (a files-only search). */
function bareFile(text: string): Place | undefined {
  const path = text.trim();
  return pathLine.test(path) ? { path } : undefined;
}

/**
 * One file written two ways: Grep prints a hit's path absolute or relative, even in one output.
 * Within one listing from one directory any ending is the same file, `a.ts` too; across calls the
 * stricter `sameFile` (`same-file.ts`) decides.
 */
export function samePath(left: string, right: string): boolean {
  return left === right || left.endsWith(`/${right}`) || right.endsWith(`/${left}`);
}

/**
 * The lines of a search's output that name no file (grep of one file, or of piped text): how many,
 * and the number of the first when `-n` gave them. A harness's envelope lines (mini-swe-agent's
 * `<returncode>`, `<output>`) are not matches.
 */
function unplacedMatches(result: string): { count: number; firstLine?: number } {
  let count = 0;
  let firstLine: number | undefined;
  for (const line of result.split('\n', MAX_LINES)) {
    const text = line.trim();
    if (text === '' || /^<\/?\w+>/.test(text) || emptyResultLine.test(text)) continue;
    count++;
    const numbered = /^(\d+)[:-]/.exec(line);
    if (numbered && firstLine === undefined) firstLine = Number(numbered[1]);
  }
  return firstLine === undefined ? { count } : { count, firstLine };
}

/**
 * Where a search found its pattern: the files its output names, or, when it names none, the one
 * file the call searched (grep prints no path for one) at its first `N:` line; and how many lines
 * matched where no file is known (piped text).
 */
export function searchPlaces(result: string, file: string | undefined): { hits: SearchHit[]; lines: number } {
  const hits = searchHits(result);
  if (hits.length > 0)
    return { hits: file?.startsWith('/') ? hits.map((hit) => placed(hit, file)) : hits, lines: 0 };
  const { count, firstLine } = unplacedMatches(result);
  if (count === 0) return { hits, lines: 0 };
  if (file === undefined) return { hits, lines: count };
  return {
    hits: [{ path: file, hit: firstLine === undefined ? file : `${file}:${firstLine}`, matched: true }],
    lines: 0,
  };
}

/**
 * A hit whose path its tool printed relative (Claude Code's Grep prints paths relative to the
 * folder the agent runs in, `go.mod` for a search of `/repo`, `cmd/main.go` for one of `/repo/cmd`)
 * made absolute against the absolute path searched: joined where the path's last folders open the
 * hit, else under the path. Shown relative, it read as under the working set's root, which it may
 * not be.
 */
function placed(hit: SearchHit, searched: string): SearchHit {
  if (hit.path.startsWith('/')) return hit;
  const relative = hit.path.replace(/^(?:\.\/)+/, '');
  const folders = searched.replace(/\/+$/, '').split('/');
  const index = folders.findIndex((_, at) => {
    const tail = folders.slice(at).join('/');
    return at > 0 && (relative === tail || relative.startsWith(`${tail}/`));
  });
  // A file searched (`a/b.go`) is no folder to put another path under.
  if (index === -1 && /^[^.].*\./.test(folders.at(-1)!)) return hit;
  const path = `${index === -1 ? folders.join('/') : folders.slice(0, index).join('/')}/${relative}`;
  return { ...hit, path, hit: `${path}${hit.hit.slice(hit.path.length)}` };
}

/** What a search of piped text found: lines of that text, none a hit of a file. */
export function pipedMatches(result: string): { hits: SearchHit[]; lines: number } {
  return { hits: [], lines: unplacedMatches(result).count };
}
