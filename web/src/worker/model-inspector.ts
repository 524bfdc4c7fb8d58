// The worker's side of the model inspector (the views of the whole model at once): every head's attention
// in one batch, head statistics measured one head per task (progress, and other requests answered in between), ablation,
// positional encodings and the model's anatomy. Every number comes from the engine; this file only moves
// them and decides nothing about the model.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isModelInspectorRequest, type AttentionBatch, type ModelInspectorRequest, type RopePicture, type RopeSource } from '../protocol-model-inspector';
import { explain } from './explain';

type Post = (message: FromWorker, transfer?: Transferable[]) => void;

export interface ModelInspectorContext {
  engine: GlassboxEngine | null;
  post: Post;
  generating(): boolean; // a generation is under way (ablation waits for it to end)
}

let measurement = 0; // the newest measure-heads request: an older one stops at its next head

/** Handles one of the model inspector's requests; false for any other message. */
export function handleModelInspector(context: ModelInspectorContext, message: { type: string }): boolean {
  if (!isModelInspectorRequest(message.type)) return false;
  const m = message as ModelInspectorRequest;
  const { post } = context;
  const fail = (error: unknown, title: string) => post({ type: 'reply', req: m.req, ok: false, error: explain(error, title) });
  const e = context.engine;
  if (!e) {
    fail(new Error('The engine is still starting'), 'The engine is not ready');
    return true;
  }
  try {
    switch (m.type) {
      case 'attention-batch': {
        const batch = attentionBatch(e, m.window, m.around);
        post(replyTo(m.type, m.req, batch), [batch.matrix.buffer]);
        break;
      }
      case 'measure-heads':
        measureHeads(context, e, m.req, m.prompt);
        break;
      case 'ablate':
        if (context.generating()) throw new Error('Stop the generation first: the ablation reads its tokens again.');
        {
          const change = e.ablate(m.scales, m.position ?? -1, m.meanHeads ?? []);
          const compared = Array.from(e.sequence().subarray(change.comparedFrom, change.comparedFrom + change.klBitsByPosition.length));
          post(replyTo(m.type, m.req, { ...change, pieceBefore: e.piece(change.topBefore), pieceAfter: e.piece(change.topAfter), pieces: e.pieces(compared) }));
        }
        break;
      case 'clear-ablation':
        if (context.generating()) throw new Error('Stop the generation first.');
        post(replyTo(m.type, m.req, e.clearAblation()));
        break;
      case 'inside-info':
        post(replyTo(m.type, m.req, { positions: e.positionInfo(), anatomy: e.anatomy(), thresholds: e.headRoleThresholds() }));
        break;
      case 'flops':
        post(replyTo(m.type, m.req, e.flopsPerToken(m.sequenceLength)));
        break;
      case 'sinusoidal': {
        const table = e.sinusoidalTable(m.positions, m.dim);
        post(replyTo(m.type, m.req, table), [table.buffer]);
        break;
      }
      case 'rope':
        post(replyTo(m.type, m.req, rope(e, m.positions, m.anglePosition, m.source)));
        break;
    }
  } catch (error) {
    fail(error, 'The inspection could not be computed');
  }
  return true;
}

/**
 * Every layer's heads over `window` positions (and their numbers), as one Float32Array: the newest ones, or,
 * with `around`, a window holding that position (centred on it where the text allows).
 */
function attentionBatch(e: GlassboxEngine, window: number, around?: number): AttentionBatch {
  const info = e.info();
  const trace = e.traceInfo();
  const total = trace.positions;
  const span = Math.max(1, window);
  const end = around === undefined ? total : Math.min(total, Math.max(around + 1 + Math.floor(span / 2), trace.firstKept + span));
  const begin = Math.max(trace.firstKept, end - span);
  const size = Math.max(0, end - begin);
  const per = info.heads * size * size;
  const matrix = new Float32Array(info.layers * per);
  const stats = new Float32Array(info.layers * info.heads * 3);
  const firstVisible = new Int32Array(info.layers * size);
  for (let layer = 0; layer < info.layers && size > 0; layer++) {
    const a = e.attention(layer, -1, begin, end);
    matrix.set(a.matrix, layer * per);
    stats.set(a.stats, layer * info.heads * 3);
    firstVisible.set(a.firstVisible, layer * size);
  }
  const ids = Array.from(e.sequence()).slice(begin, begin + size);
  return { layers: info.layers, heads: info.heads, begin, size, total, matrix, stats, firstVisible, ids, pieces: e.pieces(ids), scaled: e.headScales().length > 0 };
}

/** One head per task, so a Stop, a tokenize or an attention request is answered between heads. */
function measureHeads(context: ModelInspectorContext, e: GlassboxEngine, req: number, prompt: string) {
  const id = ++measurement;
  const started = performance.now();
  let ids = Array.from(e.sequence());
  if (ids.length === 0) ids = e.tokenize(prompt, true).map((t) => t.id);
  const job = e.beginMeasureHeads(ids);
  context.post({ type: 'measure-progress', req, completed: 0, total: job.total });
  const next = () => {
    if (id !== measurement) {
      context.post({ type: 'reply', req, ok: false, error: { title: 'Measuring was replaced by a newer request' } });
      return;
    }
    try {
      const step = job.step();
      context.post({ type: 'measure-progress', req, completed: step.completed, total: step.total });
      if (step.done) {
        context.post(replyTo('measure-heads', req, { heads: step.heads, roles: step.roles, tokens: ids.length, ms: performance.now() - started }));
      } else {
        setTimeout(next, 0);
      }
    } catch (error) {
      context.post({ type: 'reply', req, ok: false, error: explain(error, 'The heads could not be measured') });
    }
  };
  setTimeout(next, 0);
}

/** A deterministic unit vector from a seed (mulberry32 + Box-Muller): the "random pair" of the RoPE view. */
function unitVector(length: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const v = new Float32Array(length);
  let norm = 0;
  for (let i = 0; i < length; i++) {
    v[i] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < length; i++) v[i] /= norm;
  return v;
}

function rope(e: GlassboxEngine, positions: number, anglePosition: number, source: RopeSource): RopePicture {
  const headDim = e.info().headDim;
  let q: Float32Array;
  let k: Float32Array;
  if (source.kind === 'random') {
    q = unitVector(headDim, source.seed);
    k = unitVector(headDim, source.seed + 1000003);
  } else {
    // The head's real query (before RoPE turned it), dotted with itself at every pair of positions: how
    // RoPE makes the same content match less well, and differently, at each distance.
    q = e.headQuery(source.layer, source.head, source.position);
    k = q;
  }
  // A head's own query turns as its layer turns (a sliding-window layer has its own RoPE base).
  const layer = source.kind === 'random' ? -1 : source.layer;
  const dots = e.ropeDotProducts(q, k, positions, layer);
  const angles = e.ropeAngles(anglePosition, layer);
  return { positions, q, k, dots, angles, anglePosition, source };
}
