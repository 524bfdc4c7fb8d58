// Attention weights to pixels: the one painter every attention picture uses (the heatmap, the model view's
// thumbnails, the all-heads grid). Weights go through the colour scale of ui/colors.ts; keys a query cannot
// see (the future, or outside a sliding window) get the mask's colour.
import { LUT, MASKED, level, type Scale } from '../ui/colors';

/** Which keys each query row of a window sees: the engine's firstVisible (sliding-window layers) and the causal mask. */
export interface KeyMask {
  begin: number; // the window's first position
  firstVisible: Int32Array; // per query row, the first position it sees (the engine's rule)
}

/** Whether query row q of the window cannot see key k (relative indices): the future, or older than its sliding window. */
export const isMasked = (mask: KeyMask, q: number, k: number) => k > q || mask.begin + k < (mask.firstVisible[q] ?? 0);

/** Whether some key before row q's own is hidden by a sliding window (not by the causal mask). */
export const outsideWindow = (mask: KeyMask, q: number, k: number) => k <= q && mask.begin + k < (mask.firstVisible[q] ?? 0);

/**
 * The n x n matrix at `offset` of `matrix` (row-major [query][key]) as a size x size image. At size n each
 * pixel is one cell; smaller, each pixel is the largest weight of the cells it covers, so thin patterns (a
 * diagonal) stay visible, and a pixel is masked only when every cell it covers is.
 */
export function attentionImage(matrix: Float32Array, offset: number, n: number, mask: KeyMask, scale: Scale, size = n): ImageData {
  const image = new ImageData(size, size);
  const pixels = new Uint32Array(image.data.buffer);
  const edge = (i: number) => Math.floor((i * n) / size);
  for (let y = 0; y < size; y++) {
    const q0 = edge(y);
    const q1 = Math.max(q0 + 1, edge(y + 1));
    for (let x = 0; x < size; x++) {
      const k0 = edge(x);
      const k1 = Math.max(k0 + 1, edge(x + 1));
      let max = 0;
      let visible = false;
      for (let q = q0; q < q1; q++) {
        const row = offset + q * n;
        for (let k = k0; k < k1; k++) {
          if (isMasked(mask, q, k)) continue;
          visible = true;
          max = Math.max(max, matrix[row + k]);
        }
      }
      pixels[y * size + x] = visible ? LUT[level(max, scale)] : MASKED;
    }
  }
  return image;
}
