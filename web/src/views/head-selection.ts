// Which heads the person marked for ablation, and by how much each is scaled (0: off, 1: as trained). The
// model view, the head table and the ablation panel all edit and show this one selection.
export class HeadSelection {
  private readonly scales = new Map<number, number>(); // layer * heads + head -> scale
  private readonly listeners: (() => void)[] = [];
  layers = 0;
  heads = 0;

  setModel(layers: number, heads: number) {
    this.layers = layers;
    this.heads = heads;
    this.scales.clear();
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

  toggle(layer: number, head: number) {
    const i = this.index(layer, head);
    if (this.scales.has(i)) this.scales.delete(i);
    else this.scales.set(i, 0);
    this.changed();
  }

  set(layer: number, head: number, scale: number | null) {
    const i = this.index(layer, head);
    if (scale === null) this.scales.delete(i);
    else this.scales.set(i, Math.min(1, Math.max(0, scale)));
    this.changed();
  }

  /** Marks every head of `layer` (scale 0). */
  selectLayer(layer: number) {
    for (let h = 0; h < this.heads; h++) this.scales.set(this.index(layer, h), 0);
    this.changed();
  }

  clear() {
    this.scales.clear();
    this.changed();
  }

  /** The marked heads, in layer-major order. */
  entries(): { layer: number; head: number; scale: number }[] {
    return [...this.scales.entries()].sort((a, b) => a[0] - b[0]).map(([i, scale]) => ({ layer: Math.floor(i / this.heads), head: i % this.heads, scale }));
  }

  get size() {
    return this.scales.size;
  }

  /** The engine's table: [layer * heads + head], 1 where nothing is marked. */
  table(): number[] {
    const table = new Array<number>(this.layers * this.heads).fill(1);
    for (const [i, scale] of this.scales) table[i] = scale;
    return table;
  }
}
