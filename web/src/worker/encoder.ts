// The worker's side of an encoder's tasks: fill-mask, sentence similarity, attention, and heads switched off.
// The engine computes them all (the core's fill_masks, embed_texts, attend_texts, as the CLI's fill-mask,
// embed and inspect); this file only moves the numbers.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isEncoderRequest, type EncoderAttentionResult, type EncoderRequest, type FillMaskResult, type SimilarityResult } from '../protocol-encoder';
import { explain } from './explain';

type Post = (message: FromWorker, transfer?: Transferable[]) => void;

const decoder = new TextDecoder();

// What a bad-argument means in each task: the engine's own message (the detail) says which rule the text broke.
const TITLES = {
  'fill-mask': { fallback: 'Could not fill in the blanks', badArgument: 'This text cannot be filled in' },
  similarity: { fallback: 'Could not compare the sentences', badArgument: 'These sentences cannot be compared' },
  'encoder-attention': { fallback: 'Could not read the attention', badArgument: 'This text cannot be read' },
  'encoder-ablate': { fallback: 'Could not switch the heads off', badArgument: 'These heads cannot be switched off' },
};

/** Handles one of the encoder's requests; false for any other message. */
export function handleEncoder(engine: GlassboxEngine | null, post: Post, message: { type: string }): boolean {
  if (!isEncoderRequest(message.type)) return false;
  const m = message as EncoderRequest;
  const titles = TITLES[m.type];
  try {
    if (!engine) throw new Error('The engine is still starting');
    if (m.type === 'fill-mask') post(replyTo(m.type, m.req, fillMask(engine, m.text, m.topK)));
    else if (m.type === 'similarity') post(replyTo(m.type, m.req, similarity(engine, m.texts)));
    else if (m.type === 'encoder-ablate') post(replyTo(m.type, m.req, engine.setEncoderHeadScales(m.scales)));
    else {
      const result = attention(engine, m.texts, m.index, m.parseSpecial);
      post(replyTo(m.type, m.req, result), [result.matrix.buffer]);
    }
  } catch (error) {
    const report = explain(error, titles.fallback);
    if (report.code === 'bad-argument') report.title = titles.badArgument;
    post({ type: 'reply', req: m.req, ok: false, error: report });
  }
  return true;
}

function fillMask(e: GlassboxEngine, text: string, topK: number): FillMaskResult {
  const started = performance.now();
  const filled = e.fillMask(text, topK);
  const ms = performance.now() - started;
  const ids = Array.from(filled.tokens);
  return { text, ids, pieces: e.pieces(ids).map((p) => decoder.decode(p)), masks: filled.masks, ms };
}

function similarity(e: GlassboxEngine, texts: string[]): SimilarityResult {
  const started = performance.now();
  const r = e.embed(texts);
  const ms = performance.now() - started;
  return {
    texts,
    tokenCounts: r.tokens.map((ids) => ids.length),
    ids: r.tokens.map((ids) => Array.from(ids)),
    embeddings: r.embeddings,
    similarity: r.similarity.map((row) => Array.from(row)),
    pooling: r.pooling,
    ms,
  };
}

function attention(e: GlassboxEngine, texts: string[], index: number, parseSpecial: boolean): EncoderAttentionResult {
  const started = performance.now();
  const a = e.encoderAttention(texts, index, { parseSpecial });
  const ms = performance.now() - started;
  return { ...a, index, pieces: e.pieces(Array.from(a.tokens)), thresholds: e.headRoleThresholds(), ms };
}
