// The whole data flow of the loaded model in one picture, drawn from its own configuration: the token and
// its embedding, one block as this model builds it (its norms where they sit — Pre-LN, Post-LN or sandwich —,
// attention with its head count and grouped-query sharing, the feed-forward's kind and widths, the residual
// adds), repeated for every layer, the final norm, the unembedding and the softmax that gives the next token.
// At the current step it shows the token read, the residual stream's length entering each layer, and the
// token chosen. Each part links to the view that shows it (one tab stop: arrows move between parts, Enter
// follows), and the picture replays the step's path down the stream when the step changes.
import type { ModelInfo } from '../protocol';
import { ffnName, niceName } from '../ui/model-names';
import { el, tokenLabel } from '../ui/text';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const STREAM_X = 86; // the residual stream's line
const BRANCH_X = 190; // where a sub-block's boxes start
const BOX_H = 34;
const GAP = 14;

/** A part of the picture a person can follow to the view that shows it. */
export interface FlowPart {
  id: string; // data-part, for the tests
  target: string; // the id of the heading of the card it opens
  label: string; // what the link says it shows
}

export interface FlowStep {
  position: number;
  piece: Uint8Array; // the token read at the step
  chosen: { piece: Uint8Array; probability: number } | null; // the token drawn from the step, when one was
  norms: number[] | null; // |x| entering layers 0..L-1 and leaving the last (L + 1 values)
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  return node;
}

export class FlowDiagram {
  private readonly figure = el('figure', 'flow-figure');
  private readonly caption = el('figcaption', 'flow-caption');
  private parts: { node: SVGGElement; part: FlowPart }[] = [];
  private focused = 0;
  private stream: SVGPathElement | null = null;
  private streamLength = 0;
  private layerBars: SVGRectElement[] = [];
  private layerValues: SVGTextElement[] = [];
  private tokenText: SVGTextElement | null = null;
  private chosenText: SVGTextElement | null = null;
  private info: ModelInfo | null = null;
  /** A part was followed: open its card. */
  onFollow: (part: FlowPart) => void = () => {};

  constructor(root: HTMLElement) {
    root.append(this.figure);
    this.empty('Load a model: its architecture is drawn here, part by part.');
  }

  empty(message: string) {
    this.info = null;
    this.figure.replaceChildren(el('p', 'empty', message));
  }

  /** Draws the model's architecture. */
  setModel(info: ModelInfo) {
    this.info = info;
    this.parts = [];
    this.layerBars = [];
    this.layerValues = [];
    const picture = svg('svg', { class: 'flow-svg', role: 'group' });
    picture.setAttribute('aria-label', `The data flow of this ${info.architecture} model; arrow keys move between its parts, Enter opens the view that shows one`);
    picture.tabIndex = 0;
    const defs = svg('defs');
    const marker = svg('marker', { id: 'flow-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'flow-arrowhead' }));
    defs.append(marker);
    picture.append(defs);

    let y = 8;
    const onStream = (part: FlowPart, title: string, detail: string, className = '') => {
      const g = this.box(picture, STREAM_X - 70, y, 140 + 300, title, detail, part, className);
      y += BOX_H + GAP;
      return g;
    };
    const norm = niceName(info.norm);
    this.tokenText = null;
    const token = onStream({ id: 'token', target: 'prompt-heading', label: 'the tokens' }, 'Token', '');
    this.tokenText = token.querySelector('.flow-detail');
    onStream({ id: 'embedding', target: 'positions-heading', label: 'positional encodings' }, 'Embedding', `a row of ${info.vocabSize.toLocaleString('en-US')} × ${info.dim}: the token becomes a vector of ${info.dim}`);
    if (info.position === 'learned' || info.position === 'sinusoidal')
      onStream({ id: 'positions', target: 'positions-heading', label: 'positional encodings' }, '+ Position', `${niceName(info.position)}: a vector for the position is added`);

    // --- one block, as this model builds it ---
    const blockTop = y;
    y += 22;
    const gqa = info.kvHeads !== info.heads ? ` · ${info.kvHeads} key/value heads, each shared by ${info.heads / info.kvHeads} (GQA)` : '';
    const sliding = (info.slidingLayers ?? []).filter(Boolean).length;
    const attentionDetail = `${info.heads} heads × ${info.headDim}${gqa}${info.qkNorm ? ' · q, k normed' : ''}${info.position === 'rope' ? ' · RoPE on q, k' : info.position === 'alibi' ? ' · ALiBi bias' : ''}${sliding > 0 ? ` · ${sliding} layers windowed` : ''}`;
    const ffnDetail = `${info.dim} → ${info.hiddenDim}${info.gatedFfn ? ' (gate × up)' : ''} → ${info.dim}`;
    const sub = (kind: 'attention' | 'ffn') => {
      const placement = info.normPlacement;
      const names = kind === 'attention'
        ? { part: { id: 'attention', target: 'attention-heading', label: 'attention' }, title: 'Attention', detail: attentionDetail }
        : { part: { id: 'ffn', target: 'anatomy-heading', label: 'the anatomy' }, title: `Feed-forward · ${ffnName(info.activation, info.gatedFfn)}`, detail: ffnDetail };
      const normPart = { id: `norm-${kind}`, target: 'anatomy-heading', label: 'the anatomy' };
      const branchTop = y;
      const boxes: [FlowPart, string, string][] = [];
      if (placement !== 'post') boxes.push([normPart, norm, 'on the sub-block\'s input']);
      boxes.push([names.part, names.title, names.detail]);
      if (placement === 'sandwich') boxes.push([{ ...normPart, id: `norm-${kind}-after` }, norm, 'on its output']);
      for (const [part, title, detail] of boxes) {
        this.box(picture, BRANCH_X, y, WIDTH - BRANCH_X - 8, title, detail, part, 'flow-branch');
        y += BOX_H + 6;
      }
      // Out of the stream into the first box, and from the last box back into the add.
      const addY = y + 8;
      picture.append(svg('path', { d: `M${STREAM_X},${branchTop + BOX_H / 2} H${BRANCH_X}`, class: 'flow-wire', 'marker-end': 'url(#flow-arrow)' }));
      picture.append(svg('path', { d: `M${BRANCH_X + 20},${y - 6} V${addY} H${STREAM_X + 10}`, class: 'flow-wire', 'marker-end': 'url(#flow-arrow)' }));
      const add = svg('g', { class: 'flow-add' });
      add.append(svg('circle', { cx: STREAM_X, cy: addY, r: 9 }), svg('text', { x: STREAM_X, y: addY + 4, 'text-anchor': 'middle' }));
      add.lastChild!.textContent = '+';
      picture.append(add);
      y = addY + 16;
      if (placement === 'post') {
        this.box(picture, STREAM_X - 70, y, 210, norm, 'on the stream, after the add', { id: `norm-${kind}-post`, target: 'anatomy-heading', label: 'the anatomy' }, 'flow-stream-norm');
        y += BOX_H + GAP;
      }
    };
    sub('attention');
    sub('ffn');
    const blockBottom = y;
    const frame = svg('rect', { x: 6, y: blockTop, width: WIDTH - 12, height: blockBottom - blockTop, rx: 10, class: 'flow-block' });
    picture.insertBefore(frame, picture.firstChild!.nextSibling);
    const repeat = svg('text', { x: 16, y: blockTop + 15, class: 'flow-repeat' });
    repeat.textContent = `× ${info.layers} layers (one block drawn; each reads the stream and adds to it)`;
    picture.append(repeat);
    y += GAP;

    // --- the stream's length entering each layer, at the step ---
    const barsTop = y;
    const barW = Math.max(3, Math.min(24, (WIDTH - BRANCH_X - 16) / (info.layers + 1) - 2));
    const label = svg('text', { x: 16, y: barsTop + 14, class: 'flow-small' });
    label.textContent = '|x| entering each layer';
    picture.append(label);
    const lens = { id: 'stream', target: 'lens-heading', label: 'the logit lens' };
    const barsGroup = svg('g', { class: 'flow-part flow-bars', 'data-part': lens.id });
    for (let l = 0; l <= info.layers; l++) {
      const bar = svg('rect', { x: BRANCH_X + l * (barW + 2), y: barsTop + 36, width: barW, height: 0, class: l === info.layers ? 'flow-bar flow-bar-out' : 'flow-bar' });
      bar.dataset.base = String(barsTop + 36); // the bars stand on this line
      const title = svg('title');
      title.textContent = l === info.layers ? 'leaving the last layer' : `entering layer ${l}`;
      bar.append(title);
      barsGroup.append(bar);
      this.layerBars.push(bar);
    }
    const value = svg('text', { x: BRANCH_X, y: barsTop + 50, class: 'flow-small' });
    barsGroup.append(value);
    this.layerValues = [value];
    picture.append(barsGroup);
    this.parts.push({ node: barsGroup, part: lens });
    y = barsTop + 60;

    if (info.finalNorm) onStream({ id: 'final-norm', target: 'anatomy-heading', label: 'the anatomy' }, `Final ${norm}`, 'on the stream leaving the last layer');
    onStream({ id: 'unembedding', target: 'lens-heading', label: 'the logit lens' }, 'Unembedding', `${info.dim} → ${info.vocabSize.toLocaleString('en-US')} logits${info.tiedEmbeddings ? ' · the embedding\'s own matrix (tied)' : ''}`);
    const next = onStream({ id: 'softmax', target: 'pipeline-heading', label: 'the sampling pipeline' }, 'Softmax → next token', '');
    this.chosenText = next.querySelector('.flow-detail');

    // The stream itself: one line from the token to the output, under everything.
    const path = svg('path', { d: `M${STREAM_X},${8 + BOX_H} V${y - GAP}`, class: 'flow-stream' });
    picture.insertBefore(path, picture.firstChild!.nextSibling);
    const pulse = svg('path', { d: `M${STREAM_X},${8 + BOX_H} V${y - GAP}`, class: 'flow-pulse' });
    picture.insertBefore(pulse, path.nextSibling);
    this.stream = pulse;
    this.streamLength = y - GAP - 8 - BOX_H;
    picture.setAttribute('viewBox', `0 0 ${WIDTH} ${y}`);

    picture.addEventListener('keydown', (event) => {
      const to = { ArrowDown: this.focused + 1, ArrowRight: this.focused + 1, ArrowUp: this.focused - 1, ArrowLeft: this.focused - 1, Home: 0, End: this.parts.length - 1 }[event.key];
      if (to !== undefined) {
        event.preventDefault();
        this.focus(Math.max(0, Math.min(this.parts.length - 1, to)));
      } else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.onFollow(this.parts[this.focused].part);
      }
    });
    picture.addEventListener('focus', () => this.focus(this.focused));
    picture.addEventListener('blur', () => this.parts.forEach((p) => p.node.classList.remove('focused')));
    this.focused = 0;
    this.caption.textContent = 'Each box is a step of the computation, in this model\'s own order; a click (or Enter) opens the view that shows it.';
    this.figure.replaceChildren(picture, this.caption);
    this.figure.dataset.placement = info.normPlacement;
  }

  /** A box: a title and a detail line, a link to `part`'s view. */
  private box(picture: SVGSVGElement, x: number, y: number, width: number, title: string, detail: string, part: FlowPart, className = ''): SVGGElement {
    const g = svg('g', { class: `flow-part ${className}`, 'data-part': part.id });
    g.append(svg('rect', { x, y, width, height: BOX_H, rx: 6, class: 'flow-box' }));
    const t = svg('text', { x: x + 10, y: y + 14, class: 'flow-title' });
    t.textContent = title;
    const d = svg('text', { x: x + 10, y: y + 28, class: 'flow-detail' });
    d.textContent = detail;
    const tip = svg('title');
    tip.textContent = `${title}: opens ${part.label}`;
    g.append(t, d, tip);
    g.addEventListener('click', () => {
      this.focused = this.parts.findIndex((p) => p.node === g);
      this.onFollow(part);
    });
    picture.append(g);
    this.parts.push({ node: g, part });
    return g;
  }

  private focus(index: number) {
    this.focused = index;
    this.parts.forEach((p, i) => p.node.classList.toggle('focused', i === index));
  }

  /** The current step: the token read, the stream's lengths, the token chosen; replays the path down. */
  showStep(step: FlowStep | null) {
    if (!this.info) return;
    if (this.tokenText) this.tokenText.textContent = step ? `“${tokenLabel(step.piece)}” at position ${step.position} (the current step)` : 'generate some text: the current step\'s token shows here';
    if (this.chosenText) {
      this.chosenText.textContent = step?.chosen
        ? `drew “${tokenLabel(step.chosen.piece)}” (p = ${(step.chosen.probability * 100).toFixed(1)}% at temperature 1)`
        : step ? 'no token was drawn from this position (a prompt token)' : '';
    }
    const norms = step?.norms ?? null;
    const largest = norms ? Math.max(...norms, 1e-9) : 1;
    this.layerBars.forEach((bar, l) => {
      const h = norms ? Math.max(1, (norms[l] / largest) * 34) : 0;
      bar.setAttribute('height', String(h));
      bar.setAttribute('y', String(Number(bar.dataset.base) - h));
      bar.dataset.value = norms ? String(norms[l]) : '';
      const title = bar.querySelector('title');
      if (title && norms) title.textContent = `${l === this.layerBars.length - 1 ? 'leaving the last layer' : `entering layer ${l}`}: |x| = ${norms[l].toFixed(2)}`;
    });
    if (this.layerValues[0]) {
      this.layerValues[0].textContent = norms ? `from ${norms[0].toFixed(2)} (the embedding) to ${norms[norms.length - 1].toFixed(2)} (leaving layer ${norms.length - 2})` : '';
    }
    this.replay();
  }

  /** The step's path down the stream, once (not with reduced motion). */
  private replay() {
    const pulse = this.stream;
    if (!pulse || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    pulse.style.strokeDasharray = `24 ${this.streamLength}`;
    pulse.animate([{ strokeDashoffset: '24' }, { strokeDashoffset: String(-this.streamLength) }], { duration: 900, easing: 'ease-in-out' });
  }
}
