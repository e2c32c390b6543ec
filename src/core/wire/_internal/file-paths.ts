/**
 * Canonical paths said in a file's own terms: what each dialect's reader knows of where each
 * canonical message and block came from, and the rewrite of a text's paths through it.
 */

/** Where one canonical message came from: the file's first entry of it, and each block's own path. */
export interface MessageSource {
  message: string;
  blocks: string[];
}

/** A canonical path, or a sentence's reference: `messages[i]`, maybe `.content[j]` after it. */
const canonicalPath = /messages\[(\d+)\](?:\.content\[(\d+)\])?/g;

/** Rewrites every canonical path in a text through `sources`; one past them stays as it is. */
export function rewriteCanonicalPaths(sources: readonly MessageSource[]): (text: string) => string {
  return (text) =>
    text.replace(canonicalPath, (path, message: string, block: string | undefined) => {
      const source = sources[Number(message)];
      if (!source) return path;
      if (block === undefined) return source.message;
      return source.blocks[Number(block)] ?? source.message;
    });
}
