// The attention lab's results for the current step: one head's exact attention beside the approximation's on
// the same q and k, and their difference; the next-token distributions under both with their KL divergence;
// the KL at every position (a click selects that step); both losses; and the text each attention writes when
// it goes on from the step. Every number is the engine's (glassbox/attention_lab.hpp); this file draws.
import type { LabResult } from '../protocol-step-inspector';
import { el, tokenLabel, decodeUtf8 } from '../ui/text';
import { attentionImage } from './attention-image';
import { klStrip } from './kl-strip';
import { formatProbability } from './next-token';

const BITS_PER_NAT = 1 / Math.LN2;
/** The largest picture side in pixels: longer texts are drawn with one pixel per several cells. */
const PICTURE_MAX = 256;

/** variant − exact as a colour: red where the approximation puts more weight, blue where less. */
function differenceImage(result: LabResult, size: number, scale: number): ImageData {
  const n = result.n;
  const image = new ImageData(size, size);
  const pixels = new Uint32Array(image.data.buffer);
  const edge = (i: number) => Math.floor((i * n) / size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      // The cell of largest |difference| a pixel covers, so a thin band stays visible when shrunk.
      let diff = 0;
      let visible = false;
      for (let q = edge(y); q < Math.max(edge(y) + 1, edge(y + 1)); q++) {
        for (let k = edge(x); k < Math.max(edge(x) + 1, edge(x + 1)); k++) {
          if (k > q) continue;
          visible = true;
          const d = result.variant[q * n + k] - result.exact[q * n + k];
          if (Math.abs(d) > Math.abs(diff)) diff = d;
        }
      }
      if (!visible) {
        pixels[y * size + x] = (255 << 24) | (242 << 16) | (240 << 8) | 238;
        continue;
      }
      const t = Math.min(1, Math.abs(diff) / scale);
      const fade = (c: number) => Math.round(255 - t * (255 - c));
      const [r, g, b] = diff >= 0 ? [fade(220), fade(38), fade(38)] : [fade(37), fade(99), fade(235)];
      pixels[y * size + x] = (255 << 24) | (b << 16) | (g << 8) | r;
    }
  }
  return image;
}

function picture(image: ImageData, label: string, caption: string, className = ''): HTMLElement {
  const canvas = el('canvas', 'lab-canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.getContext('2d')!.putImageData(image, 0, 0);
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  const figure = el('figure', `lab-figure ${className}`);
  figure.append(canvas, el('figcaption', '', caption));
  return figure;
}

function topList(title: string, tokens: LabResult['exactTop'], pieces: Uint8Array[], other: Set<number>): HTMLElement {
  const box = el('div', 'lab-top');
  box.append(el('h3', 'lab-subhead', title));
  const list = el('ol', 'bars');
  const max = Math.max(...tokens.map((t) => t.probability), 1e-9);
  tokens.forEach((t, i) => {
    const item = el('li', other.has(t.id) ? 'bar-row' : 'bar-row lab-only');
    const label = el('span', 'bar-label', tokenLabel(pieces[i]));
    label.title = `id ${t.id} · logit ${t.logit.toFixed(3)}${other.has(t.id) ? '' : ' · not in the other list'}`;
    const track = el('span', 'bar-track');
    const fill = el('span', 'bar-fill');
    fill.style.width = `${Math.max(0.5, (t.probability / max) * 100)}%`;
    track.append(fill);
    item.append(label, track, el('span', 'bar-value', formatProbability(t.probability)));
    list.append(item);
  });
  box.append(list);
  return box;
}

/** A continuation's tokens, those after the first one where the two texts part marked. */
function continuation(name: string, pieces: Uint8Array[], partsAt: number, note: string): HTMLElement {
  const line = el('p', 'lab-continuation');
  line.append(el('span', 'lab-continuation-name', `${name}: `));
  if (note) {
    line.append(el('span', 'muted', note));
    return line;
  }
  if (pieces.length === 0) line.append(el('span', 'muted', '(writes nothing: the text ends here)'));
  pieces.forEach((piece, i) => line.append(el('span', i >= partsAt ? 'lab-parted' : '', decodeUtf8(piece))));
  return line;
}

export class AttentionLabView {
  private readonly body = el('div', 'lab-body');
  private readonly status = el('p', 'lab-status');
  /** A bar of the KL strip was clicked: select that step. */
  onSelect: (position: number) => void = () => {};

  constructor(root: HTMLElement) {
    this.status.setAttribute('aria-live', 'polite');
    root.append(this.status, this.body);
  }

  empty(message: string) {
    this.body.replaceChildren(el('p', 'empty', message));
    this.status.textContent = '';
  }

  working(text: string) {
    this.status.textContent = text;
  }

  error(message: string) {
    this.status.textContent = '';
    this.body.replaceChildren(el('p', 'error-text', message));
  }

  show(r: LabResult, layer: number, head: number) {
    const n = r.n;
    const step = n - 1;
    const size = Math.min(n, PICTURE_MAX);
    this.status.textContent = `Read ${n} token${n === 1 ? '' : 's'} twice in ${Math.round(r.ms)} ms.`;

    // --- the head's two matrices and their difference ---
    const mask = { begin: 0, firstVisible: new Int32Array(n) };
    let largest = 0;
    for (let q = 0; q < n; q++) for (let k = 0; k <= q; k++) largest = Math.max(largest, Math.abs(r.variant[q * n + k] - r.exact[q * n + k]));
    const scale = Math.max(largest, 1e-6);
    const where = `layer ${layer} head ${head}, ${n} tokens; the last row is step ${step}`;
    const pictures = el('div', 'lab-pictures');
    const energy = r.energyKept >= 0 ? ` · keeps ${(r.energyKept * 100).toFixed(1)}% of the energy` : '';
    pictures.append(
      picture(attentionImage(r.exact, 0, n, mask, 'sqrt', size), `Exact attention of ${where}`, 'Exact softmax'),
      picture(attentionImage(r.variant, 0, n, mask, 'sqrt', size), `${r.query.variant} attention of ${where}`, `${r.query.variant}${energy}`),
      picture(differenceImage(r, size, scale), `Difference of the two, largest ${largest.toFixed(3)}`, `Difference: red gains, blue loses (largest ${largest.toFixed(3)})`, 'lab-difference'),
    );

    // --- the step's next token under both ---
    const kl = el('p', 'lab-kl');
    kl.dataset.kl = String(r.kl);
    kl.append(
      el('strong', '', `KL(exact ‖ ${r.query.variant}) = ${(r.kl * BITS_PER_NAT).toPrecision(3)} bits`),
      ` at step ${step}: the top token ${r.topAgrees ? 'is the same' : 'changes'}.`,
    );
    const exactIds = new Set(r.exactTop.map((t) => t.id));
    const variantIds = new Set(r.variantTop.map((t) => t.id));
    const tops = el('div', 'lab-tops');
    tops.append(topList('Next token, exact', r.exactTop, r.exactTopPieces, variantIds), topList(`Next token, ${r.query.variant}`, r.variantTop, r.variantTopPieces, exactIds));

    // --- KL at every position compared ---
    const { strip, summary: klSummary } = klStrip(
      { firstPosition: r.comparedFrom, bits: r.klByPosition.map((nats) => nats * BITS_PER_NAT), topKept: r.topAgreesByPosition, pieces: r.pieces.slice(r.comparedFrom) },
      step,
      (position) => this.onSelect(position),
    );
    const summary = el('p', 'note', `${klSummary} ` + (n > 1 ? `Loss on the text: exact ${r.exactLoss.toFixed(3)}, ${r.query.variant} ${r.variantLoss.toFixed(3)} nats per token.` : ''));
    summary.dataset.key = 'summary';

    // --- the text each attention writes from the step ---
    const exact = r.exactContinuation;
    const variant = r.variantContinuation;
    let partsAt = 0;
    while (partsAt < Math.min(exact.length, variant.length) && exact[partsAt] === variant[partsAt]) partsAt++;
    const texts = el('div', 'lab-continuations');
    texts.append(
      el('h3', 'lab-subhead', 'Going on from here (greedy)'),
      continuation('Exact', r.exactContinuationPieces, r.variantCannotContinue ? Infinity : partsAt, ''),
      continuation(r.query.variant, r.variantContinuationPieces, partsAt, r.variantCannotContinue ? `${r.variantCannotContinue}.` : ''),
    );

    this.body.replaceChildren(pictures, kl, tops, el('h3', 'lab-subhead', 'KL at each position'), strip, summary, texts);
  }
}
