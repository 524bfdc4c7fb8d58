// One floating tooltip for the whole page: rows of label/value pairs, placed beside the pointer and kept
// inside the window. After a tap it stays until the next touch (pinTip).
import { el } from './text';

let tip: HTMLElement | null = null;

function element(): HTMLElement {
  if (!tip) {
    tip = el('div', 'tooltip');
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    document.body.append(tip);
  }
  return tip;
}

export type TipRow = [label: string, value: string, mono?: boolean];

export function showTip(x: number, y: number, title: string, rows: TipRow[]) {
  const node = element();
  node.replaceChildren(el('div', 'tooltip-title', title));
  const table = el('dl', 'tooltip-rows');
  for (const [label, value, mono] of rows) table.append(el('dt', '', label), el('dd', mono ? 'mono' : '', value));
  node.append(table);
  node.hidden = false;
  const { width, height } = node.getBoundingClientRect();
  const left = Math.min(window.innerWidth - width - 8, x + 14);
  const top = y + 18 + height > window.innerHeight ? y - height - 10 : y + 18;
  node.style.transform = `translate(${Math.max(8, left)}px, ${Math.max(8, top)}px)`;
}

let unpin: AbortController | null = null;

/** Keeps the tip up after a tap (a touch has no pointerleave to hide it) until the next touch or scroll. */
export function pinTip() {
  unpin?.abort();
  const controller = new AbortController();
  unpin = controller;
  window.addEventListener('pointerdown', hideTip, { capture: true, signal: controller.signal });
  window.addEventListener('scroll', hideTip, { signal: controller.signal });
}

export function hideTip() {
  unpin?.abort();
  unpin = null;
  if (tip) tip.hidden = true;
}
