// Files dropped on the page at once: which is the model, which its tokenizer, and what the page says about
// the drop. Every dropped file is either used or named as not used: a file ignored without a word looks
// like a file loaded.

export interface DroppedFiles {
  model?: File;
  tokenizer?: File;
  ignored: File[];
}

const isTokenizerName = (file: File) => /tok/i.test(file.name);
const isGgufName = (file: File) => /\.gguf$/i.test(file.name);

/**
 * One model and one tokenizer are loaded at a time. The tokenizer is the first file named like one ("tok…");
 * of two files without such a name, neither a GGUF (which carries its own), the smaller. The model is the
 * first of the others, preferring, when a tokenizer came along, one that needs it (not a GGUF). The rest is
 * ignored.
 */
export function sortDropped(files: File[]): DroppedFiles {
  let tokenizer = files.find(isTokenizerName);
  if (!tokenizer && files.length === 2 && !files.some(isGgufName)) tokenizer = files[0].size <= files[1].size ? files[0] : files[1];
  const others = files.filter((f) => f !== tokenizer);
  const model = (tokenizer && others.find((f) => !isGgufName(f))) || others[0];
  return { model, tokenizer, ignored: others.filter((f) => f !== model) };
}

/** What to say about a drop, beyond the load it starts: files not used, a tokenizer waiting for its model. */
export function describeDrop({ model, tokenizer, ignored }: DroppedFiles): string[] {
  const lines: string[] = [];
  if (tokenizer && !model) {
    lines.push(`${tokenizer.name} is the tokenizer now: drop or choose the llama2.c model (.bin) it belongs to. GGUF models use their own.`);
  }
  if (ignored.length > 0) {
    lines.push(`Not used: ${ignored.map((f) => f.name).join(', ')}. glassbox loads one model at a time, with at most one tokenizer.`);
  }
  return lines;
}
