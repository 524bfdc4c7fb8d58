// The anatomy's "Cost against length": prefill time, per-token time and memory against the length n of the
// text, measured on the loaded model for exact, window and linear attention (glassbox/length_cost.hpp), on
// log-log axes, with the seeds' formulas beside them (dashed) and the crossover n* where a token's attention
// FLOPs pass its feed-forward's marked. Measuring starts on a button, so loading a model stays fast; the
// page asks for one point at a time and shows its progress.
import type { LengthCostPlan, LengthCostPoint } from '../protocol-length-cost';
import { describeBytes, el } from '../ui/text';

const SVG_NS = 'http://www.w3.org/2000/svg';
const REPEAT = 3;
const COLORS = ['#2563eb', '#d97706', '#059669', '#9333ea', '#dc2626'];

export interface LengthCostRequests {
  plan(): Promise<LengthCostPlan>;
  measure(attention: string, length: number, repeat: number): Promise<LengthCostPoint>;
}

interface Curve {
  variant: string;
  color: string;
  points: { n: number; y: number; low?: number; high?: number }[];
  formula: boolean; // dashed: what the formula gives
}

/** One panel's quantities: measured and formula values of a point. */
interface Panel {
  key: 'prefill' | 'token' | 'memory';
  title: string;
  unit: (y: number) => string;
  measured(p: LengthCostPoint): { y: number; low?: number; high?: number };
  formula(p: LengthCostPoint): number; // FLOPs or bytes, before any fitting
  fitted: boolean; // the formula in FLOPs is scaled by one seconds-per-FLOP fitted to the measured points
}

const seconds = (s: number) => (s >= 1 ? `${s.toFixed(2)} s` : s >= 1e-3 ? `${(s * 1e3).toFixed(s >= 0.1 ? 0 : 1)} ms` : `${(s * 1e6).toFixed(0)} µs`);

const PANELS: Panel[] = [
  {
    key: 'prefill',
    title: 'Prefill: one pass over n tokens',
    unit: seconds,
    measured: (p) => ({ y: p.prefillSeconds.median, low: p.prefillSeconds.min, high: p.prefillSeconds.max }),
    formula: (p) => p.formula.attentionPrompt + p.formula.projectionsPrompt + p.formula.feedForwardPrompt,
    fitted: true,
  },
  {
    key: 'token',
    title: 'One new token after n − 1',
    unit: seconds,
    measured: (p) => ({ y: p.tokenSeconds.median, low: p.tokenSeconds.min, high: p.tokenSeconds.max }),
    formula: (p) => p.formula.attentionToken + p.formula.projectionsToken + p.formula.feedForwardToken,
    fitted: true,
  },
  {
    key: 'memory',
    title: 'Attention memory',
    unit: describeBytes,
    measured: (p) => ({ y: p.memory.kvCacheBytes + p.memory.scoresBytes + p.memory.attentionStateBytes }),
    formula: (p) => p.formula.kvCacheBytes + p.formula.scoresBytes + p.formula.stateBytes,
    fitted: false,
  },
];

export class LengthCostView {
  readonly root = el('div', 'length-cost');
  private readonly button = el('button', 'button length-cost-measure', 'Measure');
  private readonly progress = el('span', 'length-cost-progress muted');
  private readonly plots = el('div', 'length-cost-plots');
  private readonly note = el('p', 'length-cost-note muted');
  private model = 0; // a ticket: answers for an older model are dropped
  /** The measured points of the last run, by variant (for the browser tests). */
  points: Record<string, LengthCostPoint[]> = {};

  constructor(parent: HTMLElement, private readonly requests: LengthCostRequests) {
    const intro = el(
      'p',
      'muted',
      'What attention costs as the text grows, measured here on this model: exact attention compares each token with every earlier one (time ~ n² d for a prompt), a window only with the last W, linear attention keeps running sums (time ~ n d², memory constant). Dashed: the formulas.',
    );
    this.button.type = 'button';
    this.button.addEventListener('click', () => void this.measure());
    const controls = el('div', 'length-cost-controls');
    controls.append(this.button, this.progress);
    this.root.append(el('h3', 'panel-title', 'Cost against length'), intro, controls, this.plots, this.note);
    parent.append(this.root);
    this.clear();
  }

  /** No model: nothing to measure. */
  clear() {
    this.model++;
    this.points = {};
    this.root.dataset.state = 'idle';
    this.button.disabled = true;
    this.progress.textContent = '';
    this.plots.replaceChildren();
    this.note.textContent = '';
  }

  /** A model was loaded: what was measured before is gone, and Measure measures this one. */
  modelLoaded() {
    this.clear();
    this.button.disabled = false;
  }

  private async measure() {
    const ticket = ++this.model;
    this.root.dataset.state = 'measuring';
    this.button.disabled = true;
    this.points = {};
    this.plots.replaceChildren();
    this.note.textContent = '';
    try {
      const plan = await this.requests.plan();
      const variants = plan.variants.filter((v) => v.refused === '');
      const total = variants.length * plan.lengths.length;
      let done = 0;
      // One point measured and dropped first: the browser compiles the engine's hot code better once it has
      // run (the first point otherwise reads several times slower than it is).
      if (variants.length > 0) {
        this.progress.textContent = 'Warming up…';
        await this.requests.measure(variants[0].attention, plan.lengths[Math.min(2, plan.lengths.length - 1)], 1);
      }
      for (const v of variants) {
        this.points[v.attention] = [];
        for (const n of plan.lengths) {
          if (ticket !== this.model) return;
          this.progress.textContent = `Measuring ${v.attention} at n = ${n} (${done + 1} of ${total}, median of ${REPEAT} runs, one thread)…`;
          const point = await this.requests.measure(v.attention, n, REPEAT);
          if (ticket !== this.model) return;
          this.points[v.attention].push(point);
          done++;
          this.draw(plan);
        }
      }
      const refused = plan.variants.filter((v) => v.refused !== '');
      this.progress.textContent = `Measured ${done} points: lengths ${plan.lengths.join(', ')}${plan.lengths[plan.lengths.length - 1] < plan.context ? ` (capped below the context of ${plan.context} to finish in seconds)` : ''}.` + refused.map((v) => ` ${v.attention}: ${v.refused}`).join('');
      this.root.dataset.state = 'done';
    } catch (error) {
      if (ticket !== this.model) return;
      this.progress.textContent = `The cost could not be measured: ${error instanceof Error ? error.message : String(error)}`;
      this.root.dataset.state = 'error';
    } finally {
      if (ticket === this.model) this.button.disabled = false;
    }
  }

  private draw(plan: LengthCostPlan) {
    const variants = Object.keys(this.points);
    const color = (variant: string) => COLORS[variants.indexOf(variant) % COLORS.length];
    const exact = plan.variants.find((v) => v.attention === 'exact');
    const crossover = exact?.crossoverLength ?? 0;
    this.plots.replaceChildren(...PANELS.map((panel) => this.panel(panel, variants, color, crossover)));
    const legend = el('div', 'length-cost-legend');
    for (const v of variants) {
      const item = el('span', 'length-cost-key', v);
      item.style.setProperty('--key-color', color(v));
      legend.append(item);
    }
    legend.append(el('span', 'muted', ' solid: measured (bars: fastest–slowest run), dashed: formula'));
    this.plots.prepend(legend);
    const last = plan.lengths[plan.lengths.length - 1];
    this.note.textContent =
      (crossover > 0
        ? `n* = ${crossover}: from this length a token spends more FLOPs on exact attention (4·n·q per layer, q = heads × head size) than on the feed-forward (${megaflops(this.feedForwardFlops())} MFLOP per token, all layers)${crossover > last ? `, past the lengths measured here` : ''}. `
        : 'Exact attention never passes the feed-forward here. ') +
      'A window caps the keys at W, so its cost stops growing; linear attention never crosses. The time formulas are FLOPs times one seconds-per-FLOP fitted to the measured points. Memory: solid is what this engine allocates (the KV cache of every position, whatever the variant, so the three coincide, plus a row of scores per head and linear’s running sums); dashed is what each variant needs by the formula (exact: the KV cache and an n×n score matrix per head; a window: W keys and n×W scores; linear: d×d sums per head, the same at every n).';
  }

  /** A token's feed-forward FLOPs, all layers (the same at every length and for every variant). */
  private feedForwardFlops(): number {
    return Object.values(this.points).flat()[0]?.formula.feedForwardToken ?? 0;
  }

  private panel(panel: Panel, variants: string[], color: (v: string) => string, crossover: number): HTMLElement {
    const curves: Curve[] = [];
    const fit = panel.fitted ? secondsPerUnit(variants.flatMap((v) => this.points[v]), panel) : 1;
    for (const v of variants) {
      const points = this.points[v];
      curves.push({ variant: v, color: color(v), formula: false, points: points.map((p) => ({ n: p.length, ...panel.measured(p) })) });
      curves.push({ variant: v, color: color(v), formula: true, points: points.map((p) => ({ n: p.length, y: panel.formula(p) * fit })) });
    }
    const figure = el('figure', 'length-cost-panel');
    figure.dataset.panel = panel.key;
    figure.append(el('figcaption', '', panel.title), plot(curves, panel.unit, panel.key === 'memory' ? 0 : crossover, panel.key === 'memory'));
    return figure;
  }
}

/** The seconds per FLOP that puts the formula through the measured points: the geometric mean of the ratios. */
function secondsPerUnit(points: LengthCostPoint[], panel: Panel): number {
  let sum = 0;
  let count = 0;
  for (const p of points) {
    const y = panel.measured(p).y;
    const f = panel.formula(p);
    if (y > 0 && f > 0) {
      sum += Math.log(y / f);
      count++;
    }
  }
  return count > 0 ? Math.exp(sum / count) : 0;
}

/**
 * The values marked on a log axis over [y0, y1]: powers of ten (of 1024 times a power of ten for bytes, so
 * they read 1 KiB, 10 KiB, 100 KiB), with 2 and 5 times each where fewer than three would show.
 */
function ticks(y0: number, y1: number, bytes: boolean): number[] {
  const decades: number[] = [];
  for (let p = Math.floor(Math.log10(y0)) - 1; p <= Math.ceil(Math.log10(y1)) + 1; p++) {
    const v = 10 ** p;
    decades.push(bytes ? 1024 ** Math.floor(p / 3) * 10 ** (((p % 3) + 3) % 3) : v);
  }
  const inside = (values: number[]) => values.filter((v) => v >= y0 && v <= y1);
  const marks = inside(decades);
  return marks.length >= 3 ? marks : inside(decades.flatMap((v) => [v, 2 * v, 5 * v]));
}

const megaflops = (flops: number) => (flops / 1e6).toFixed(2);

function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** A log-log plot of the curves, with a vertical mark at `crossover` (0: none). */
function plot(curves: Curve[], unit: (y: number) => string, crossover: number, bytes: boolean): SVGElement {
  const width = 320;
  const height = 200;
  const left = 58;
  const right = 10;
  const top = 10;
  const bottom = 30;
  const ns = curves.flatMap((c) => c.points.map((p) => p.n));
  const ys = curves.flatMap((c) => c.points.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y])).filter((y) => y > 0);
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'length-cost-plot', role: 'img' });
  if (ns.length === 0 || ys.length === 0) return root;
  const [n0, n1] = [Math.min(...ns), Math.max(...ns, Math.min(...ns) * 2)];
  const [y0, y1] = [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5];
  const x = (n: number) => left + ((Math.log(n) - Math.log(n0)) / (Math.log(n1) - Math.log(n0))) * (width - left - right);
  const y = (v: number) => top + (1 - (Math.log(Math.max(v, y0)) - Math.log(y0)) / (Math.log(y1) - Math.log(y0))) * (height - top - bottom);
  root.append(svg('rect', { x: left, y: top, width: width - left - right, height: height - top - bottom, class: 'frame' }));
  for (let n = n0; n <= n1 * 1.001; n *= 2) {
    root.append(svg('line', { x1: x(n), x2: x(n), y1: top, y2: height - bottom, class: 'grid' }));
    const label = svg('text', { x: x(n), y: height - bottom + 13, 'text-anchor': 'middle', class: 'tick' });
    label.textContent = String(n);
    root.append(label);
  }
  for (const v of ticks(y0, y1, bytes)) {
    root.append(svg('line', { x1: left, x2: width - right, y1: y(v), y2: y(v), class: 'grid' }));
    const label = svg('text', { x: left - 4, y: y(v) + 3, 'text-anchor': 'end', class: 'tick' });
    label.textContent = unit(v);
    root.append(label);
  }
  const axis = svg('text', { x: (left + width - right) / 2, y: height - 3, 'text-anchor': 'middle', class: 'axis' });
  axis.textContent = 'n (tokens, log scale)';
  root.append(axis);
  if (crossover >= n0 && crossover <= n1) {
    root.append(svg('line', { x1: x(crossover), x2: x(crossover), y1: top, y2: height - bottom, class: 'crossover' }));
    const label = svg('text', { x: x(crossover) + 3, y: top + 10, class: 'crossover-label' });
    label.textContent = `n* = ${crossover}`;
    root.append(label);
    root.dataset.crossover = String(crossover);
  }
  for (const curve of curves) {
    const visible = curve.points.filter((p) => p.y > 0);
    if (visible.length === 0) continue;
    const d = visible.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.n).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    const path = svg('path', { d, stroke: curve.color, class: curve.formula ? 'curve formula' : 'curve measured' });
    path.dataset.variant = curve.variant;
    root.append(path);
    if (curve.formula) continue;
    for (const p of visible) {
      if (p.low !== undefined && p.high !== undefined) root.append(svg('line', { x1: x(p.n), x2: x(p.n), y1: y(p.low), y2: y(p.high), stroke: curve.color, class: 'spread' }));
      const dot = svg('circle', { cx: x(p.n), cy: y(p.y), r: 2.5, fill: curve.color });
      const title = svg('title', {});
      title.textContent = `${curve.variant}, n = ${p.n}: ${unit(p.y)}`;
      dot.append(title);
      root.append(dot);
    }
  }
  return root;
}
