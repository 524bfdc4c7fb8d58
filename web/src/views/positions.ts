// Positional encodings, as the loaded model uses them: the sinusoidal code of "Attention Is All You Need"
// (positions × dimensions; what a sinusoidal model adds to its token embeddings, and the textbook picture
// for every other model), and for RoPE models q·k as a function of the query's and the key's positions
// computed with the model's own theta, head size and pairing: every diagonal (one offset m − n) holds one
// value, the point of RoPE. Plus the angle each pair turns by at a chosen position.
import type { PositionInfo, RopePicture, RopeSource } from '../protocol-model-inspector';
import { el, inlineField } from '../ui/text';
import { AlibiView } from './alibi-view';

export type FetchSinusoidal = (positions: number, dim: number) => Promise<Float32Array>;
export type FetchRope = (positions: number, anglePosition: number, source: RopeSource) => Promise<RopePicture>;

/** Blue (−) through white (0) to red (+), for values scaled to [−1, 1]. */
function diverging(v: number): [number, number, number] {
  const t = Math.max(-1, Math.min(1, v));
  const [r0, g0, b0] = t < 0 ? [33, 102, 172] : [178, 24, 43];
  const f = Math.abs(t);
  return [Math.round(250 + (r0 - 250) * f), Math.round(250 + (g0 - 250) * f), Math.round(250 + (b0 - 250) * f)];
}

/** A rows × cols matrix as a canvas, scaled up without smoothing to cssWidth × cssHeight. */
function matrixCanvas(values: Float32Array, rows: number, cols: number, max: number, cssWidth: number, cssHeight: number, className: string, center = 0) {
  const canvas = el('canvas', className);
  canvas.width = cols;
  canvas.height = rows;
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  const image = new ImageData(cols, rows);
  for (let i = 0; i < rows * cols; i++) {
    const [r, g, b] = diverging((values[i] - center) / (max || 1));
    image.data.set([r, g, b, 255], i * 4);
  }
  canvas.getContext('2d')!.putImageData(image, 0, 0);
  return canvas;
}

/** The cell of `canvas` under the pointer, or null. */
function cellAt(canvas: HTMLCanvasElement, event: PointerEvent, rows: number, cols: number) {
  const r = canvas.getBoundingClientRect();
  const col = Math.floor(((event.clientX - r.left) / r.width) * cols);
  const row = Math.floor(((event.clientY - r.top) / r.height) * rows);
  return row >= 0 && row < rows && col >= 0 && col < cols ? { row, col } : null;
}

/** One sentence on RoPE scaling, or nothing: how many pairs turn slower than plain RoPE, and by how much. */
function ropeScaling(info: PositionInfo): string {
  const f = Array.from(info.freqFactors ?? []);
  if (f.length === 0 || f.every((x) => x === 1)) return '';
  const slowed = f.filter((x) => x !== 1).length;
  const most = Math.max(...f);
  return ` Its RoPE is scaled for long contexts: ${slowed} of the ${f.length} pairs turn slower than plain RoPE, up to ${Number(most.toPrecision(3))}× slower.`;
}

/** Gemma 3's local layers: a sliding window and a RoPE of their own. */
function slidingLayers(info: PositionInfo): string {
  if (!info.slidingLayers) return '';
  return ` ${info.slidingLayers} of its layers attend through a sliding window of ${info.slidingWindow} tokens and turn with θ = ${info.thetaSliding}${info.freqFactors?.length ? ', unscaled' : ''}; pick one of them below to see its RoPE.`;
}

export class PositionsView {
  private info: PositionInfo | null = null;
  private traced = 0;
  private ropeTicket = 0; // the newest RoPE request: an older answer is not drawn over it
  private query = -1; // the real query's position: the page's current step (-1: the newest read)
  private readonly summary = el('p', 'positions-summary');
  private readonly sinusoidal = el('div', 'positions-block');
  private readonly rope = el('div', 'positions-block');
  private readonly sinPositions = el('select');
  private readonly sinDims = el('select');
  private readonly ropeSource = el('select');
  private readonly ropeSeed = el('input');
  private readonly ropeLayer = el('select');
  private readonly ropeHead = el('select');
  private readonly ropePositions = el('select');
  private readonly anglePosition = el('input');
  private readonly sinSlot = el('div', 'positions-plot');
  private readonly ropeSlot = el('div', 'positions-plot');
  private readonly angleSlot = el('div', 'positions-angles');
  private readonly alibi = new AlibiView();
  /** The latest RoPE picture drawn (the tests read it). */
  picture: RopePicture | null = null;
  /** The largest difference between two values of one diagonal, as shown. */
  diagonalSpread = NaN;
  drawn: Promise<void> = Promise.resolve();

  constructor(
    root: HTMLElement,
    private readonly fetchSinusoidal: FetchSinusoidal,
    private readonly fetchRope: FetchRope,
  ) {
    this.sinPositions.id = 'sinusoidal-positions';
    this.sinDims.id = 'sinusoidal-dims';
    for (const n of [64, 128, 256]) this.sinPositions.append(new Option(`${n} positions`, String(n)));
    this.sinPositions.value = '128';
    this.ropeSource.id = 'rope-source';
    this.ropeSource.append(new Option('two random unit vectors', 'random'), new Option('a real query (with itself)', 'query'));
    this.ropeSeed.type = 'number';
    this.ropeSeed.id = 'rope-seed';
    this.ropeSeed.min = '0';
    this.ropeSeed.value = '1';
    this.ropeSeed.className = 'small-number';
    this.ropeLayer.id = 'rope-layer';
    this.ropeHead.id = 'rope-head';
    this.ropePositions.id = 'rope-positions';
    for (const n of [16, 32, 64]) this.ropePositions.append(new Option(`${n} positions`, String(n)));
    this.ropePositions.value = '32';
    this.anglePosition.type = 'number';
    this.anglePosition.id = 'rope-angle-position';
    this.anglePosition.min = '0';
    this.anglePosition.value = '1';
    this.anglePosition.className = 'small-number';
    for (const c of [this.sinPositions, this.sinDims]) c.addEventListener('change', () => void this.drawSinusoidal());
    for (const c of [this.ropeSource, this.ropeSeed, this.ropeLayer, this.ropeHead, this.ropePositions, this.anglePosition]) c.addEventListener('change', () => void this.drawRope());

    const sinControls = el('div', 'positions-controls');
    sinControls.append(inlineField('Rows', this.sinPositions), inlineField('Columns', this.sinDims));
    this.sinusoidal.append(el('h3', 'panel-title', 'Sinusoidal code'), sinControls, this.sinSlot);
    const ropeControls = el('div', 'positions-controls');
    ropeControls.append(
      inlineField('Vectors', this.ropeSource),
      inlineField('Seed', this.ropeSeed),
      inlineField('Layer', this.ropeLayer),
      inlineField('Head', this.ropeHead),
      inlineField('Size', this.ropePositions),
      inlineField('Angles at position', this.anglePosition),
    );
    this.rope.append(el('h3', 'panel-title', 'RoPE: q · k by position'), ropeControls, this.ropeSlot, this.angleSlot);
    root.append(this.summary, this.alibi.element, this.sinusoidal, this.rope);
    this.clear();
  }

  clear() {
    this.info = null;
    this.summary.textContent = 'Load a model to see how it encodes positions.';
    this.sinSlot.replaceChildren();
    this.ropeSlot.replaceChildren();
    this.angleSlot.replaceChildren();
    this.rope.hidden = true;
    this.alibi.element.hidden = true;
  }

  setModel(info: PositionInfo, layers: number, heads: number) {
    this.info = info;
    const isRope = info.kind === 'rope';
    this.summary.textContent = isRope
      ? `This model rotates its queries and keys (RoPE): θ = ${info.theta}, ${info.rotaryDim} of each head's ${info.headDim} values turn, in ${info.rotaryDim / 2} pairs (pairing “${info.pairing}”).${ropeScaling(info)}${slidingLayers(info)}${info.qkNorm ? ' Each head\'s queries and keys are RMS-normalized before they turn.' : ''} It adds no position code to its embeddings; the sinusoidal code below is the textbook picture.`
      : info.kind === 'sinusoidal'
        ? `This model adds the sinusoidal code below to its token embeddings (${info.dim} values per position).`
        : info.kind === 'alibi'
          ? `This model encodes positions with ALiBi: a bias on the scores by distance, below (slopes 2^(−${info.maxAlibiBias}·(h+1)/n) for n heads a power of two). The sinusoidal code further down is the textbook picture.`
          : `This model's positions are “${info.kind}”; the sinusoidal code below is the textbook picture, and the RoPE view needs a RoPE model.`;
    this.sinDims.replaceChildren(...[...new Set([info.dim, 64, 128])].map((d) => new Option(d === info.dim ? `${d} (the model's width)` : `${d} dimensions`, String(d))));
    this.sinDims.value = String(info.dim);
    this.ropeLayer.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    this.ropeHead.replaceChildren(...Array.from({ length: heads }, (_, i) => new Option(String(i), String(i))));
    this.rope.hidden = !isRope;
    this.alibi.element.hidden = info.kind !== 'alibi';
    if (info.kind === 'alibi') this.alibi.show(info);
    void this.drawSinusoidal();
    if (isRope) void this.drawRope();
  }

  /** How many positions the session has read (a real query needs one). */
  setTraced(positions: number) {
    this.traced = positions;
    this.ropeSource.options[1].disabled = positions === 0;
    if (positions === 0 && this.ropeSource.value === 'query') this.ropeSource.value = 'random';
  }

  /** The page's current step: the real query is read there (a redraw when it shows a real query). */
  setQuery(position: number) {
    if (position === this.query) return;
    this.query = position;
    if (this.info?.kind === 'rope' && this.ropeSource.value === 'query' && this.traced > 0) void this.drawRope();
  }

  private async drawSinusoidal() {
    if (!this.info) return;
    const positions = Number(this.sinPositions.value);
    const dim = Number(this.sinDims.value);
    const table = await this.fetchSinusoidal(positions, dim).catch(() => null);
    if (!table) return;
    const width = Math.min(640, Math.max(320, dim * 3));
    const canvas = matrixCanvas(table, positions, dim, 1, width, Math.min(320, positions * 2), 'positions-canvas sinusoidal-canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `Sinusoidal code of positions 0 to ${positions - 1}, ${dim} values each`);
    const readout = el('p', 'positions-readout muted', 'Rows: positions 0 (top) onward; columns: dimensions 0 (left) onward; red +1, blue −1. Low dimensions turn fast, high ones slowly.');
    canvas.addEventListener('pointermove', (event) => {
      const cell = cellAt(canvas, event, positions, dim);
      if (cell) readout.textContent = `PE(${cell.row}, ${cell.col}) = ${table[cell.row * dim + cell.col].toFixed(4)}  (${cell.col % 2 === 0 ? 'sin' : 'cos'} of position / 10000^(${cell.col - (cell.col % 2)}/${dim}))`;
    });
    this.sinSlot.replaceChildren(canvas, readout);
  }

  private drawRope(): Promise<void> {
    this.drawn = this.drawRopeNow();
    return this.drawn;
  }

  private async drawRopeNow() {
    if (!this.info || this.info.kind !== 'rope') return;
    const n = Number(this.ropePositions.value);
    const real = this.ropeSource.value === 'query' && this.traced > 0;
    this.ropeSeed.disabled = real;
    this.ropeLayer.disabled = this.ropeHead.disabled = !real;
    const source: RopeSource = real
      ? { kind: 'query', layer: Number(this.ropeLayer.value), head: Number(this.ropeHead.value), position: this.query >= 0 && this.query < this.traced ? this.query : this.traced - 1 }
      : { kind: 'random', seed: Math.max(0, Math.floor(Number(this.ropeSeed.value) || 0)) };
    const anglePosition = Math.max(0, Math.floor(Number(this.anglePosition.value) || 0));
    let picture: RopePicture;
    const ticket = ++this.ropeTicket;
    try {
      picture = await this.fetchRope(n, anglePosition, source);
      if (ticket !== this.ropeTicket) return;
    } catch (error) {
      this.ropeSlot.replaceChildren(el('p', 'empty', `RoPE could not be computed: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    this.picture = picture;
    const { dots } = picture;
    let max = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of dots) {
      max = Math.max(max, Math.abs(v));
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    // Values of both signs: white is 0. All of one sign (a vector with itself): white is the middle of their
    // range, so the variation with the offset shows rather than one flat colour.
    const mixed = lo < 0 && hi > 0;
    const center = mixed ? 0 : (lo + hi) / 2;
    const half = mixed ? max : (hi - lo) / 2;
    // Each diagonal (offset d = m − n): its values, their spread, and the value it holds.
    let spread = 0;
    const byOffset: number[] = [];
    for (let d = 0; d < n; d++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let m = d; m < n; m++) {
        const v = dots[m * n + (m - d)];
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      spread = Math.max(spread, hi - lo);
      byOffset.push(dots[d * n]);
    }
    this.diagonalSpread = spread;
    const size = Math.min(360, n * 10);
    const canvas = matrixCanvas(dots, n, n, half, size, size, 'positions-canvas rope-canvas', center);
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `q·k for query positions 0 to ${n - 1} (rows) and key positions 0 to ${n - 1} (columns)`);
    const readout = el(
      'p',
      'positions-readout muted',
      `Rows: the query's position m; columns: the key's position n; ` +
        (mixed ? `red +, blue −, up to ${max.toFixed(3)}.` : `colour from ${lo.toFixed(3)} (blue) to ${hi.toFixed(3)} (red).`) +
        ' Hover a cell for its value.',
    );
    canvas.addEventListener('pointermove', (event) => {
      const cell = cellAt(canvas, event, n, n);
      if (cell) readout.textContent = `q at ${cell.row} · k at ${cell.col} = ${dots[cell.row * n + cell.col].toFixed(5)} (offset ${cell.row - cell.col})`;
    });
    const check = el('p', 'rope-check');
    check.dataset.spread = String(spread);
    check.textContent = `Every diagonal holds one value: the largest difference within a diagonal is ${spread.toExponential(1)}, ${(spread / (max || 1)).toExponential(1)} of the largest value (${max.toFixed(3)}): float rounding.`;
    const what =
      picture.source.kind === 'query'
        ? `Layer ${picture.source.layer} head ${picture.source.head}'s query at position ${picture.source.position} (before RoPE), dotted with itself.`
        : `Two random unit vectors (seed ${picture.source.seed}).`;
    const plot = el('div', 'rope-plot');
    plot.append(canvas, this.offsetChart(byOffset));
    this.ropeSlot.replaceChildren(el('p', 'muted', what), plot, readout, check);
    this.drawAngles(picture);
  }

  /** q·k against the offset m − n ≥ 0, as bars: what each diagonal holds. */
  private offsetChart(values: number[]) {
    const width = 320;
    const height = 160;
    const canvas = el('canvas', 'positions-canvas rope-offsets');
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `q·k by offset: ${values.slice(0, 8).map((v) => v.toFixed(3)).join(', ')}${values.length > 8 ? ', …' : ''}`);
    const ctx = canvas.getContext('2d')!;
    ctx.scale(dpr, dpr);
    // The axis holds 0 when the values change sign; otherwise it spans their range, so a slow decay shows.
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    const [bottom, top] = lo < 0 && hi > 0 ? [-Math.max(-lo, hi), Math.max(-lo, hi)] : lo >= 0 ? [lo - (hi - lo) * 0.1, hi] : [lo, hi + (hi - lo) * 0.1];
    const plotTop = 8;
    const plotBottom = height - 22;
    const y = (v: number) => plotBottom - ((v - bottom) / (top - bottom || 1)) * (plotBottom - plotTop);
    const base = bottom < 0 && top > 0 ? y(0) : lo >= 0 ? plotBottom : plotTop;
    const left = 56;
    const bar = (width - left) / values.length;
    ctx.strokeStyle = '#cfd4dd';
    ctx.beginPath();
    ctx.moveTo(left, Math.round(base) + 0.5);
    ctx.lineTo(width, Math.round(base) + 0.5);
    ctx.stroke();
    values.forEach((v, d) => {
      const yv = y(v);
      ctx.fillStyle = v >= 0 ? '#b2182b' : '#2166ac';
      ctx.fillRect(left + d * bar, Math.min(yv, base), Math.max(1, bar - 1), Math.max(1, Math.abs(base - yv)));
    });
    ctx.fillStyle = '#4a5263';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'right';
    // The axis names the values' own extremes, rounded as the caption rounds them (toFixed(3)): the padding
    // below a range of one sign is not a value, so it gets no label.
    const [high, low] = lo < 0 && hi > 0 ? [top, bottom] : [hi, lo];
    canvas.dataset.axisHigh = high.toFixed(3);
    canvas.dataset.axisLow = low.toFixed(3);
    ctx.fillText(high.toFixed(3), left - 4, Math.max(plotTop + 8, y(high) + 4));
    ctx.fillText(low.toFixed(3), left - 4, Math.min(plotBottom, y(low) + 4));
    ctx.textAlign = 'left';
    ctx.fillText('offset m − n: 0', left, height - 4);
    ctx.textAlign = 'right';
    ctx.fillText(String(values.length - 1), width, height - 4);
    return canvas;
  }

  private drawAngles(picture: RopePicture) {
    const { angles, anglePosition } = picture;
    const table = el('table', 'rope-angles');
    const head = el('tr');
    for (const h of ['Pair', 'Angle (rad)', 'Turns', 'Where it points']) head.append(el('th', '', h));
    const thead = el('thead');
    thead.append(head);
    const body = el('tbody');
    angles.forEach((angle, i) => {
      const tr = el('tr');
      const reduced = ((angle % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      const dial = el('span', 'rope-dial');
      dial.style.setProperty('--angle', `${-reduced}rad`);
      const cell = el('td');
      cell.append(dial, document.createTextNode(` ${((reduced * 180) / Math.PI).toFixed(1)}°`));
      tr.append(el('td', 'num', String(i)), el('td', 'num', angle.toFixed(4)), el('td', 'num', (angle / (2 * Math.PI)).toFixed(3)), cell);
      body.append(tr);
    });
    table.append(thead, body);
    this.angleSlot.replaceChildren(el('h3', 'panel-title', `How far each pair has turned at position ${anglePosition}`), table);
  }
}
