// What the page is looking at, kept in the URL's hash so a link reopens it: the prompt, the sampler's
// settings, the attention's layer and head, the selected position, and the catalog model's id.
//   #model=stories260k&prompt=Once%20upon&t=0.8&k=40&p=0.9&seed=7&max=64&layer=1&head=2&pos=5
export interface PageState {
  model?: string;
  prompt?: string;
  temperature?: number;
  topK?: number;
  topP?: number;
  seed?: number;
  maxTokens?: number;
  layer?: number;
  head?: number;
  position?: number;
}

const NUMBERS: [keyof PageState, string][] = [
  ['temperature', 't'],
  ['topK', 'k'],
  ['topP', 'p'],
  ['seed', 'seed'],
  ['maxTokens', 'max'],
  ['layer', 'layer'],
  ['head', 'head'],
  ['position', 'pos'],
];

export function readHash(hash = location.hash): PageState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state: PageState = {};
  const model = params.get('model');
  if (model) state.model = model;
  const prompt = params.get('prompt');
  if (prompt !== null) state.prompt = prompt;
  for (const [key, name] of NUMBERS) {
    const text = params.get(name);
    const value = text === null || text === '' ? NaN : Number(text);
    if (Number.isFinite(value)) (state as Record<string, number>)[key] = value;
  }
  return state;
}

export function formatHash(state: PageState): string {
  const params = new URLSearchParams();
  if (state.model) params.set('model', state.model);
  if (state.prompt !== undefined) params.set('prompt', state.prompt);
  for (const [key, name] of NUMBERS) {
    const value = state[key];
    if (typeof value === 'number' && Number.isFinite(value)) params.set(name, String(value));
  }
  return `#${params.toString().replace(/\+/g, '%20')}`;
}

/** Replaces the hash without a new history entry (each keystroke would otherwise be a Back step). */
export function writeHash(state: PageState) {
  const hash = formatHash(state);
  if (hash !== location.hash) history.replaceState(null, '', hash);
}
