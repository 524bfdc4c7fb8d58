// The colour scale for attention weights: a sequential ramp from paper white through indigo to ink, so
// weak attention fades into the page and strong attention stands out. 256-entry lookup table, plus the
// legend drawn from the same table, so what the legend shows is exactly what the heatmap uses.
import { el } from './text';

const STOPS: [number, [number, number, number]][] = [
  [0.0, [250, 250, 252]],
  [0.08, [224, 231, 255]],
  [0.25, [165, 180, 252]],
  [0.45, [99, 102, 241]],
  [0.7, [67, 56, 202]],
  [1.0, [30, 27, 75]],
];

function interpolate(t: number): [number, number, number] {
  for (let i = 1; i < STOPS.length; i++) {
    const [t1, c1] = STOPS[i];
    const [t0, c0] = STOPS[i - 1];
    if (t <= t1) {
      const f = (t - t0) / (t1 - t0);
      return [0, 1, 2].map((k) => Math.round(c0[k] + (c1[k] - c0[k]) * f)) as [number, number, number];
    }
  }
  return STOPS[STOPS.length - 1][1];
}

/** RGBA for 256 levels, packed as little-endian uint32 (ABGR) for direct ImageData writes. */
export const LUT = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  const [r, g, b] = interpolate(i / 255);
  LUT[i] = (255 << 24) | (b << 16) | (g << 8) | r;
}
/** The colour of masked (future) cells: the causal mask. */
export const MASKED = (255 << 24) | (242 << 16) | (240 << 8) | 238;
/** The colour of an encoder's padding (a text batched beside longer ones): no query, no key. */
export const PADDING = (255 << 24) | (214 << 16) | (206 << 8) | 203;
export const PADDING_CSS = 'rgb(203 206 214)';

export type Scale = 'linear' | 'sqrt';

/** The picker of a weight scale, linear or square root (which lifts the small weights into view). */
export function scalePicker(id: string): HTMLSelectElement {
  const select = el('select');
  select.id = id;
  for (const [value, text] of [['linear', 'linear'], ['sqrt', 'square root']]) select.append(new Option(text, value));
  return select;
}

/** Maps an attention weight in [0, 1] to a LUT index. */
export function level(weight: number, scale: Scale): number {
  const v = scale === 'sqrt' ? Math.sqrt(Math.max(0, weight)) : weight;
  return Math.max(0, Math.min(255, Math.round(v * 255)));
}

export function cssColor(weight: number, scale: Scale): string {
  const c = LUT[level(weight, scale)];
  return `rgb(${c & 255} ${(c >> 8) & 255} ${(c >> 16) & 255})`;
}

/** Ink that stays readable on top of cssColor(weight). */
export const inkOn = (weight: number, scale: Scale) => (level(weight, scale) > 115 ? '#fff' : '#1b1f2a');

/** A horizontal legend: the ramp, ticks at weights 0, .25, .5, .75, 1 (placed by the scale), and the mask. */
/**
 * The weight scale, and what the grey cells are: a decoder's masked future, an encoder's batch padding, or
 * nothing ('none': an encoder's lone text, where no cell is masked).
 */
export function legend(scale: Scale, masked: 'future' | 'padding' | 'none' = 'future'): HTMLElement {
  const root = el('div', 'legend');
  const ramp = el('div', 'legend-ramp');
  const stops = Array.from({ length: 17 }, (_, i) => {
    const c = LUT[Math.round((i / 16) * 255)];
    return `rgb(${c & 255} ${(c >> 8) & 255} ${(c >> 16) & 255}) ${(i / 16) * 100}%`;
  });
  ramp.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
  const ticks = el('div', 'legend-ticks');
  for (const w of [0, 0.25, 0.5, 0.75, 1]) {
    const tick = el('span', 'legend-tick', w === 0 ? '0' : w === 1 ? '1' : String(w).replace(/^0/, ''));
    tick.style.left = `${(level(w, scale) / 255) * 100}%`;
    ticks.append(tick);
  }
  const caption = el('div', 'legend-caption');
  caption.append(el('span', '', scale === 'sqrt' ? 'attention weight (√ scale)' : 'attention weight'));
  const mask = el('span', 'legend-mask');
  const swatch = el('i', 'legend-mask-swatch');
  if (masked === 'padding') swatch.style.background = PADDING_CSS;
  mask.append(swatch, document.createTextNode(masked === 'padding' ? 'padding (masked out)' : 'future (masked)'));
  if (masked !== 'none') caption.append(mask);
  const bar = el('div', 'legend-bar');
  bar.append(ramp, ticks);
  root.append(bar, caption);
  return root;
}

/** Chip colours for tokens: soft, distinct neighbours, dark text on all. */
export const CHIP_COLORS = ['#e0e7ff', '#dcfce7', '#fef3c7', '#fce7f3', '#cffafe', '#ede9fe', '#ffedd5', '#e0f2fe'];
export const CHIP_BORDERS = ['#c7d2fe', '#bbf7d0', '#fde68a', '#fbcfe8', '#a5f3fc', '#ddd6fe', '#fed7aa', '#bae6fd'];
