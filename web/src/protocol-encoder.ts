// The messages of an encoder's tasks (fill-mask, sentence similarity) between the page and the worker.
// protocol.ts adds them to its unions. The numbers are the engine's (wasm/engine.d.ts: fillMask, embed).
import type { EncoderAttention, EncoderHeadReport, HeadRoleThresholds, MaskCandidate } from '@glassbox/engine';

export type { EncoderHeadReport, MaskCandidate };

/** fill-mask's answer: the text's tokens (their pieces, to show them) and the candidates at each [MASK]. */
export interface FillMaskResult {
  text: string; // the text this answers (the page drops answers to an older text)
  ids: number[];
  pieces: string[]; // of `ids`
  masks: { position: number; candidates: MaskCandidate[]; before?: MaskCandidate[]; klBits?: number }[]; // engine's fillMask
  ms: number; // how long the engine took
}

/** Sentence similarity's answer: each sentence's tokens, its embedding, and the cosine of every pair. */
export interface SimilarityResult {
  texts: string[];
  tokenCounts: number[]; // tokens per sentence, [CLS] and [SEP] included
  ids: number[][];
  embeddings: Float32Array[];
  similarity: number[][]; // [a][b]
  pooling: 'mean' | 'cls';
  ms: number;
}

/** Where every head looks in one text of a padded batch (the engine's encoderAttention), with the pieces. */
export interface EncoderAttentionResult extends EncoderAttention {
  texts: number;
  index: number; // the text of the batch shown
  pieces: Uint8Array[]; // of `tokens`
  thresholds: HeadRoleThresholds; // the engine's, behind the roles (the table's help says them)
  ms: number;
}

export type EncoderRequest =
  | { type: 'fill-mask'; req: number; text: string; topK: number }
  | { type: 'similarity'; req: number; texts: string[] }
  | { type: 'encoder-attention'; req: number; texts: string[]; index: number; parseSpecial: boolean }
  | { type: 'encoder-ablate'; req: number; scales: number[] }; // [layer * heads + head]; [] for none

/** Each request's reply: the one place a request is paired with what answers it (protocol.ts joins them). */
export interface EncoderReplies {
  'fill-mask': FillMaskResult;
  similarity: SimilarityResult;
  'encoder-attention': EncoderAttentionResult;
  'encoder-ablate': number; // heads not at 1
}

/** The request types above, as a value (the worker dispatches on it); naming each once keeps the list whole. */
const encoderKinds: Record<keyof EncoderReplies, true> = { 'fill-mask': true, similarity: true, 'encoder-attention': true, 'encoder-ablate': true };
export const isEncoderRequest = (type: string): type is keyof EncoderReplies => Object.hasOwn(encoderKinds, type);
