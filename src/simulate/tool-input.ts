/** Reading a tool call's input the same way in every probe (survival, next need). */

/** The input as an object; `{}` for anything else. */
export function inputObject(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/** The first of `keys` whose value is a non-blank string. */
export function firstString(input: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/** The last segment of a path, either separator, a trailing one ignored. */
export function basename(path: string): string {
  const trimmed = path.trim().replace(/[/\\]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1);
}
