import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Where a requested path resolved, or why it was refused. */
export type WorkspacePathResult =
  | { ok: true; absolutePath: string; relativePath: string }
  | { ok: false; reason: string };

/** Options of {@link resolveWorkspacePath}. */
export interface ResolveWorkspacePathOptions {
  /** The workspace root. Must exist. */
  workspace: string;
  /** The path the model asked for, relative to the workspace or absolute inside it. */
  requestedPath: string;
  /**
   * Top-level directories of the workspace the tools may not touch (the agent's own session
   * store, so the model cannot rewrite its transcript).
   * @default ['.agent-compact']
   */
  reservedDirectories?: readonly string[];
}

/**
 * Resolves a path the model asked for inside the workspace, following symlinks. A path leading
 * outside — through `..`, an absolute path elsewhere, or a symlink (also a dangling one, and one
 * on a parent directory of a file yet to be created) — is refused with a reason the model can read.
 *
 * The check resolves the real path of the nearest existing ancestor, so a file that does not exist
 * yet is judged by the directory it would be created in.
 *
 * @example
 * const resolved = await resolveWorkspacePath({ workspace: process.cwd(), requestedPath: 'src/app.ts' });
 * if (!resolved.ok) return { isError: true, content: resolved.reason };
 */
export async function resolveWorkspacePath({
  workspace,
  requestedPath,
  reservedDirectories = ['.agent-compact'],
}: ResolveWorkspacePathOptions): Promise<WorkspacePathResult> {
  if (typeof requestedPath !== 'string' || requestedPath.trim() === '') {
    return { ok: false, reason: 'path is empty' };
  }
  if (requestedPath.includes('\0')) return { ok: false, reason: 'path contains a NUL byte' };
  const root = await realpath(workspace);
  const lexical = path.resolve(root, requestedPath);
  if (!isInside(root, lexical)) {
    return {
      ok: false,
      reason: `path "${requestedPath}" is outside the workspace ${root}; use a path inside it`,
    };
  }

  // Walk up to the nearest existing ancestor and resolve its real path; the rest is appended.
  let existing = lexical;
  const missingSegments: string[] = [];
  for (;;) {
    const resolved = await realpathIfExists(existing);
    if (resolved !== undefined) {
      existing = resolved;
      break;
    }
    if (await isLink(existing)) {
      return { ok: false, reason: `path "${requestedPath}" goes through a symlink whose target is missing` };
    }
    missingSegments.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  const real = path.join(existing, ...missingSegments);
  if (!isInside(root, real)) {
    return {
      ok: false,
      reason: `path "${requestedPath}" leads outside the workspace ${root} through a symlink; use a path inside it`,
    };
  }
  const relativePath = path.relative(root, real);
  const topDirectory = relativePath.split(path.sep)[0];
  if (topDirectory !== undefined && reservedDirectories.includes(topDirectory)) {
    return {
      ok: false,
      reason: `path "${requestedPath}" is in ${topDirectory}/, which the agent keeps for itself`,
    };
  }
  return { ok: true, absolutePath: real, relativePath: relativePath === '' ? '.' : relativePath };
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

async function realpathIfExists(candidate: string): Promise<string | undefined> {
  try {
    return await realpath(candidate);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

async function isLink(candidate: string): Promise<boolean> {
  try {
    return (await lstat(candidate)).isSymbolicLink();
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
