// Which tokenizer goes with a model: the one rule, stated here and nowhere else.
//
// A tokenizer chosen together with the model (dropped with it, picked for it, typed into the URL form with it)
// is always used: the person said so, and the engine checks that it fits. A tokenizer left over from an
// earlier choice goes with a model that needs one (a llama2.c checkpoint) and is set aside for a model that
// carries its own (a GGUF): a GGUF dropped after a llama2.c pair must not be read with that pair's tokenizer.
//
// It lives in the worker because it needs both halves: what the person did, which the page knows and sends
// (ModelSource.tokenizerChosenBefore), and what the model file is, which only its bytes say (the engine's
// isGguf) and only the worker reads. File names would only guess, and the engine knows nothing of earlier choices.
import type { ModelSource } from '../protocol';

export interface TokenizerChoice {
  use?: string | File; // the tokenizer to load with the model; none: the model's own
  chosenBefore: boolean; // `use` was chosen in an earlier action
  setAside?: string; // the name of a tokenizer chosen before and left out: the model carries its own
}

export function tokenizerFor(source: Exclude<ModelSource, { kind: 'hub' }>, modelIsGguf: boolean): TokenizerChoice {
  if (!source.tokenizer) return { chosenBefore: false };
  if (source.kind === 'url' || !source.tokenizerChosenBefore) return { use: source.tokenizer, chosenBefore: false };
  if (modelIsGguf) return { chosenBefore: false, setAside: source.tokenizer.name };
  return { use: source.tokenizer, chosenBefore: true };
}
