// The training lab's pictures (views/train-lab.ts): a small SVG line chart over the steps, and a heat strip
// of one value per head over the measurements (the induction scores, where a head that forms shows as a row
// that turns dark). Plain SVG, redrawn whole: a few hundred points each.
import { el } from '../ui/text';

const SVG_NS = 'http://www.w3.org/2000/svg';
const W = 320;
const H = 150;
const PAD = { left: 38, right: 8, top: 8, bottom: 20 };

export interface Series {
  name: string;
  color: string;
  points: { x: number; y: number }[];
  dots?: boolean; // sparse points (the held-out loss): drawn as dots joined by a thin line
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  return node;
}

const short = (v: number) => (v === 0 ? '0' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(2));

/** A line chart of `series` over x in [0, xMax]: a figure with its caption, legend and axes' end values. */
export function lineChart(title: string, series: Series[], xMax: number, kind: string): HTMLElement {
  const figure = el('figure', 'train-chart');
  figure.dataset.chart = kind;
  figure.append(el('figcaption', '', title));
  const all = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.y));
  const plot = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'train-plot', role: 'img', 'aria-label': title });
  const yMin = Math.min(0, ...all.map((p) => p.y));
  const yMax = Math.max(1e-9, ...all.map((p) => p.y));
  const sx = (x: number) => PAD.left + (x / Math.max(1, xMax)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => H - PAD.bottom - ((y - yMin) / (yMax - yMin || 1)) * (H - PAD.top - PAD.bottom);
  plot.append(svg('rect', { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: 'frame' }));
  for (const [y, anchor] of [[yMax, 'top'], [yMin, 'bottom']] as const) {
    const label = svg('text', { x: PAD.left - 4, y: sy(y) + (anchor === 'top' ? 8 : 0), 'text-anchor': 'end', class: 'tick' });
    label.textContent = short(y);
    plot.append(label);
  }
  const xLabel = svg('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end', class: 'tick' });
  xLabel.textContent = `step ${xMax}`;
  const x0 = svg('text', { x: PAD.left, y: H - 6, class: 'tick' });
  x0.textContent = '0';
  plot.append(xLabel, x0);
  for (const s of series) {
    const points = s.points.filter((p) => Number.isFinite(p.y));
    if (points.length === 0) continue;
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join('');
    plot.append(svg('path', { d, class: `curve${s.dots ? ' thin' : ''}`, stroke: s.color, 'data-series': s.name }));
    if (s.dots) for (const p of points) plot.append(svg('circle', { cx: sx(p.x), cy: sy(p.y), r: 2.2, fill: s.color }));
  }
  figure.append(plot);
  if (series.length > 1) {
    const legend = el('div', 'train-legend');
    for (const s of series) {
      const key = el('span', 'train-key', s.name);
      key.style.setProperty('--key-color', s.color);
      legend.append(key);
    }
    figure.append(legend);
  }
  return figure;
}

/**
 * One row per head (`labels`), one column per measurement (`columns[c][head]`, the step it was taken at in
 * `steps[c]`), darker for a higher score in [0, 1].
 */
export function heatStrip(title: string, labels: string[], steps: number[], columns: number[][]): HTMLElement {
  const figure = el('figure', 'train-chart train-strip');
  figure.dataset.chart = 'induction';
  figure.append(el('figcaption', '', title));
  const rowH = 12;
  const labelW = 38;
  const cellW = Math.max(2, Math.min(14, (W - labelW - 4) / Math.max(1, columns.length)));
  const height = labels.length * rowH + 16;
  const plot = svg('svg', { viewBox: `0 0 ${W} ${height}`, class: 'train-plot', role: 'img', 'aria-label': title });
  labels.forEach((label, h) => {
    const text = svg('text', { x: labelW - 4, y: h * rowH + 9, 'text-anchor': 'end', class: 'tick' });
    text.textContent = label;
    plot.append(text);
    columns.forEach((column, c) => {
      const v = Math.max(0, Math.min(1, column[h] ?? 0));
      const cell = svg('rect', { x: labelW + c * cellW, y: h * rowH, width: cellW, height: rowH - 1, fill: `rgb(79 70 229 / ${(0.06 + 0.94 * v).toFixed(3)})` });
      const tip = svg('title', {});
      tip.textContent = `${label} at step ${steps[c]}: induction ${v.toFixed(3)}`;
      cell.append(tip);
      plot.append(cell);
    });
  });
  const scale = svg('text', { x: labelW, y: height - 3, class: 'tick' });
  scale.textContent = 'pale 0 … dark 1 (an induction head: above 0.4)';
  plot.append(scale);
  if (steps.length > 0) {
    const last = svg('text', { x: labelW + columns.length * cellW, y: height - 3, 'text-anchor': 'end', class: 'tick' });
    last.textContent = `step ${steps[steps.length - 1]}`;
    plot.append(last);
  }
  figure.append(plot);
  return figure;
}
