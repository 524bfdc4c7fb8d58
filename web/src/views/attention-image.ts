// Attention weights to pixels: the one painter every attention picture uses (the heatmap, the model view's
// thumbnails, the all-heads grid). Weights go through the colour scale of ui/colors.ts; keys a query cannot
// see (the future, or outside a sliding window) get the mask's colour, and an encoder's padding its own.
import { LUT, MASKED, PADDING, level, type Scale } from '../ui/colors';

/**
 * Which keys each query row of a window sees. A decoder's: the causal mask and the engine's firstVisible
 * (sliding-window layers). An encoder's (`causal` false): every token of its text, before and after; in a
 * padded batch the rows and columns from `length` on are padding, never a query that counts nor a key.
 */
export interface KeyMask {
  begin: number; // the window's first position
  firstVisible: Int32Array; // per query row, the first position it sees (the engine's rule)
  causal?: boolean; // false: an encoder's bidirectional attention (default true)
  length?: number; // an encoder's text in a padded batch: its tokens; the rest of the width is padding
}

/** Whether cell (q, k) is the padding of a text batched beside longer ones. */
export const isPadding = (mask: KeyMask, q: number, k: number) => mask.length !== undefined && (q >= mask.length || k >= mask.length);

/** Whether query row q of the window cannot see key k (relative indices): padding, the future, or older than its sliding window. */
export const isMasked = (mask: KeyMask, q: number, k: number) =>
  isPadding(mask, q, k) || (mask.causal !== false && k > q) || mask.begin + k < (mask.firstVisible[q] ?? 0);

/** Whether some key before row q's own is hidden by a sliding window (not by the causal mask). */
export const outsideWindow = (mask: KeyMask, q: number, k: number) => k <= q && mask.begin + k < (mask.firstVisible[q] ?? 0);

/** The last key row q can see: itself in a decoder, the text's last token in an encoder. */
export const lastVisibleKey = (mask: KeyMask, q: number, size: number) => (mask.causal === false ? (mask.length ?? size) - 1 : q);

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
      let padding = true; // every cell it covers is padding
      for (let q = q0; q < q1; q++) {
        const row = offset + q * n;
        for (let k = k0; k < k1; k++) {
          padding &&= isPadding(mask, q, k);
          if (isMasked(mask, q, k)) continue;
          visible = true;
          max = Math.max(max, matrix[row + k]);
        }
      }
      pixels[y * size + x] = visible ? LUT[level(max, scale)] : padding ? PADDING : MASKED;
    }
  }
  return image;
}
