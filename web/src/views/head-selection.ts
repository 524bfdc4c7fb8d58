// Which heads the person marked for ablation, and how each is ablated: scaled (0: off, 1: as trained), or
// replaced by its mean output over the text (mean ablation). The model view, the head table and the ablation
// panel all edit and show this one selection.
export class HeadSelection {
  private readonly scales = new Map<number, number>(); // layer * heads + head -> scale
  private readonly means = new Set<number>(); // marked heads replaced by their mean (their scale unused)
  private readonly listeners: (() => void)[] = [];
  layers = 0;
  heads = 0;

  setModel(layers: number, heads: number) {
    this.layers = layers;
    this.heads = heads;
    this.scales.clear();
    this.means.clear();
    this.changed();
  }

  onChange(listener: () => void) {
    this.listeners.push(listener);
  }

  private changed() {
    for (const listener of this.listeners) listener();
  }

  index = (layer: number, head: number) => layer * this.heads + head;

  has(layer: number, head: number) {
    return this.scales.has(this.index(layer, head));
  }

  scale(layer: number, head: number) {
    return this.scales.get(this.index(layer, head)) ?? 1;
  }

  /** Whether the marked head is replaced by its mean rather than scaled. */
  isMean(layer: number, head: number) {
    return this.means.has(this.index(layer, head));
  }

  toggle(layer: number, head: number) {
    const i = this.index(layer, head);
    if (this.scales.has(i)) {
      this.scales.delete(i);
      this.means.delete(i);
    } else this.scales.set(i, 0);
    this.changed();
  }

  set(layer: number, head: number, scale: number | null) {
    const i = this.index(layer, head);
    if (scale === null) {
      this.scales.delete(i);
      this.means.delete(i);
    } else this.scales.set(i, Math.min(1, Math.max(0, scale)));
    this.changed();
  }

  /** A marked head replaced by its mean output over the text (true) or scaled as set (false). */
  setMean(layer: number, head: number, mean: boolean) {
    const i = this.index(layer, head);
    if (!this.scales.has(i)) return;
    if (mean) this.means.add(i);
    else this.means.delete(i);
    this.changed();
  }

  /** Marks every head of `layer` (scale 0). */
  selectLayer(layer: number) {
    for (let h = 0; h < this.heads; h++) this.scales.set(this.index(layer, h), 0);
    this.changed();
  }

  clear() {
    this.scales.clear();
    this.means.clear();
    this.changed();
  }

  /** The marked heads, in layer-major order. */
  entries(): { layer: number; head: number; scale: number; mean: boolean }[] {
    return [...this.scales.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, scale]) => ({ layer: Math.floor(i / this.heads), head: i % this.heads, scale, mean: this.means.has(i) }));
  }

  get size() {
    return this.scales.size;
  }

  /** The engine's table: [layer * heads + head], 1 where nothing is marked (0 for a head replaced by its mean). */
  table(): number[] {
    const table = new Array<number>(this.layers * this.heads).fill(1);
    for (const [i, scale] of this.scales) table[i] = this.means.has(i) ? 0 : scale;
    return table;
  }

  /** The heads replaced by their mean, as indices of table(). */
  meanHeads(): number[] {
    return [...this.means].sort((a, b) => a - b);
  }
}
