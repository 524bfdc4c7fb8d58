// A categorical palette for telling heads apart on the page's white cards: the first eight are the
// Okabe–Ito colours (distinct for colour-blind readers too; its yellow darkened to stay visible on white),
// then four more, then evenly spread hues for models with many heads.
const BASE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8C6D1F', '#3D3D3D', '#7B3294', '#1B9E77', '#E7298A', '#66A61E'];

export function headColor(head: number): string {
  if (head < BASE.length) return BASE[head];
  const hue = Math.round((head * 137.508) % 360); // the golden angle keeps neighbours apart
  return `hsl(${hue} 65% 40%)`;
}
