/**
 * The report's survival chart: per kind of fact, a bar per strategy with the share of the facts the
 * history held that the request still shows (see `survival.ts`). Inline SVG, no scripts. The
 * next-need chart is the same chart over the next-need kinds (`next-need.ts`).
 */
import type { StrategyName } from './replay-strategy.js';
import { survivalKinds } from './survival.js';

/** Shares per kind: how many the strategy's requests showed of how many counted. */
type KindCounts = Readonly<Record<string, { visible: number; total: number }>>;

/** Pixels per bar, between groups and for the labels. */
const BAR_HEIGHT = 10;
const GROUP_GAP = 10;
const LABEL_WIDTH = 120;
const BAR_WIDTH = 360;

/**
 * An SVG bar chart of survival per kind and strategy; empty when no strategy has survival.
 *
 * @example
 * const svg = renderSurvivalChart({ 'agent-compact': survival }, ['agent-compact'], { 'agent-compact': '#2f6fdf' });
 */
export function renderSurvivalChart(
  survival: Partial<Record<StrategyName, KindCounts>>,
  strategies: readonly StrategyName[],
  colors: Readonly<Record<StrategyName, string>>,
  {
    kinds = survivalKinds,
    label = 'survival per kind of fact',
    className = 'survival',
  }: { kinds?: readonly string[]; label?: string; className?: string } = {},
): string {
  const shown = strategies.filter((name) => survival[name] !== undefined);
  if (shown.length === 0) return '';
  const groupHeight = shown.length * BAR_HEIGHT + GROUP_GAP;
  const height = kinds.length * groupHeight;
  const parts: string[] = [];
  kinds.forEach((kind, group) => {
    const top = group * groupHeight;
    parts.push(`<text x="0" y="${top + BAR_HEIGHT}" font-size="11">${kind}</text>`);
    shown.forEach((name, row) => {
      const { visible, total } = survival[name]![kind] ?? { visible: 0, total: 0 };
      const share = total === 0 ? 0 : visible / total;
      const y = top + row * BAR_HEIGHT;
      const label = total === 0 ? '—' : `${Math.round(share * 100)}% ${name}`;
      parts.push(
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${(share * BAR_WIDTH).toFixed(1)}" height="${BAR_HEIGHT - 2}" fill="${colors[name]}"><title>${name} ${kind}: ${visible} of ${total}</title></rect>`,
        `<text x="${LABEL_WIDTH + share * BAR_WIDTH + 4}" y="${y + BAR_HEIGHT - 2}" font-size="9">${label}</text>`,
      );
    });
  });
  const width = LABEL_WIDTH + BAR_WIDTH + 160;
  return `<svg class="${className}" role="img" aria-label="${label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${parts.join('')}</svg>`;
}
