/**
 * The public surface of every subpath, as `npm run api:report` writes it to `api/*.api.md`,
 * compared to the reports checked in: a change to an export (a name, a kind, a signature) fails
 * here until the report is regenerated, so it shows up in review.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_FOLDER, buildApiReports } from '../scripts/api-report.mjs';

describe('the API report', () => {
  // One TypeScript program over every entry point (the SDK types included) takes a while.
  const reports = buildApiReports();

  it('has one checked-in report per subpath and no stale one', () => {
    expect(reports.length).toBeGreaterThan(10);
    const checkedIn = readdirSync(API_FOLDER).filter((file) => file.endsWith('.api.md'));
    expect(checkedIn.sort()).toEqual(reports.map((report) => report.file).sort());
  });

  it.each(reports.map((report) => [report.specifier, report] as const))(
    'matches the checked-in report of %s (regenerate with npm run api:report)',
    (_specifier, { file, content }) => {
      const path = join(API_FOLDER, file);
      expect(existsSync(path)).toBe(true);
      expect(readFileSync(path, 'utf8')).toBe(content);
    },
  );

  it('reports the root at most 60 exports, counting types', () => {
    const root = reports.find((report) => report.specifier === 'agent-compact')!;
    const count = Number(/^(\d+) exports:/m.exec(root.content)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(60);
  });
});
