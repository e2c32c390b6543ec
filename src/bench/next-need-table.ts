// The next-need tables the survival and replay benches print (docs/simulate.md "Next need"), with
// issue #32's targets at Claude Code's own compaction points.
import { type NextNeed, type NextNeedCount, nextNeedKinds } from '../simulate/next-need.js';

/** A column: who compacted, what the next calls found in its contexts, its median size. */
export interface NextNeedColumn {
  label: string;
  nextNeed: NextNeed;
  /** Median compacted size, o200k tokens; absent where not measured. */
  medianTokens?: number;
  /** Dollars, where the column is a replay. */
  cost?: number;
  /** Compaction points measured. */
  points?: number;
}

/** Issue #32's targets for agent-compact, against the recording agent's own share (`own`). */
export function nextNeedTarget(
  kind: string,
  own: NextNeedCount,
): { text: string; met: (share: number) => boolean } | undefined {
  const ownShare = share(own);
  switch (kind) {
    case 'files':
      return { text: '≥ 90%', met: (value) => value >= 0.9 };
    case 'identifiers':
      return { text: `≥ 2× = ${percent(2 * ownShare)}`, met: (value) => value >= 2 * ownShare };
    case 'edit-texts':
      return { text: `≥ 5× = ${percent(5 * ownShare)}`, met: (value) => value >= 5 * ownShare };
    default:
      return undefined;
  }
}

export function share({ visible, total }: NextNeedCount): number {
  return total === 0 ? 0 : visible / total;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}

function cell(count: NextNeedCount): string {
  return count.total === 0 ? 'n/a' : `${percent(share(count))} (${count.visible}/${count.total})`;
}

/**
 * A markdown table, a row per kind and a column per compaction; with `targets`, the first column is
 * the recording agent's own and the one labelled `agent-compact` is held to issue #32's targets.
 */
export function nextNeedTable(columns: readonly NextNeedColumn[], { targets = false } = {}): string {
  const own = columns[0]!;
  const ours = columns.find((column) => column.label === 'agent-compact');
  const header = ['next need', ...columns.map((column) => column.label), ...(targets ? ['target', ''] : [])];
  const rows: string[][] = [];
  for (const kind of nextNeedKinds) {
    const target = targets && ours ? nextNeedTarget(kind, own.nextNeed[kind]) : undefined;
    const met = target === undefined || !ours ? true : target.met(share(ours.nextNeed[kind]));
    rows.push([
      kind,
      ...columns.map((column) => cell(column.nextNeed[kind])),
      ...(targets ? [target?.text ?? '', met ? '' : 'MISSED'] : []),
    ]);
  }
  if (columns.some((column) => column.medianTokens !== undefined)) {
    const ownSize = own.medianTokens ?? 0;
    const ourSize = ours?.medianTokens ?? 0;
    rows.push([
      'median size (o200k)',
      ...columns.map((column) => (column.medianTokens === undefined ? '' : String(column.medianTokens))),
      ...(targets ? [`≤ ${ownSize}`, ourSize <= ownSize ? '' : 'MISSED'] : []),
    ]);
  }
  if (columns.some((column) => column.cost !== undefined)) {
    rows.push([
      'cost',
      ...columns.map((column) => (column.cost === undefined ? '' : `$${column.cost.toFixed(2)}`)),
      ...(targets ? ['', ''] : []),
    ]);
  }
  if (columns.some((column) => column.points !== undefined)) {
    rows.push([
      'compaction points',
      ...columns.map((column) => (column.points === undefined ? '' : String(column.points))),
      ...(targets ? ['', ''] : []),
    ]);
  }
  return [
    `| ${header.join(' | ')} |`,
    `| --- | ${header
      .slice(1)
      .map(() => '---:')
      .join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
