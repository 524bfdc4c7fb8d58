// The worker's side of the step inspector (the views of one selected step): attention step by step, the
// logit lens and the inspection document. Every number comes from the engine; this file only moves them.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isStepInspectorRequest, type LensWindow, type StepInspectorReplies, type StepInspectorRequest, type StepPipeline } from '../protocol-step-inspector';
import { explain } from './explain';

type Post = (message: FromWorker, transfer?: Transferable[]) => void;

/** Handles one of the step inspector's requests; false for any other message. */
export function handleStepInspector(engine: GlassboxEngine | null, post: Post, message: { type: string }): boolean {
  if (!isStepInspectorRequest(message.type)) return false;
  const m = message as StepInspectorRequest;
  try {
    if (!engine) throw new Error('The engine is still starting');
    post(replyTo(m.type, m.req, answer(engine, m)));
  } catch (error) {
    post({ type: 'reply', req: m.req, ok: false, error: explain(error, 'Could not read inside the model') });
  }
  return true;
}

function answer(e: GlassboxEngine, m: StepInspectorRequest): StepInspectorReplies[StepInspectorRequest['type']] {
  switch (m.type) {
    case 'attention-detail': {
      const detail = e.attentionDetail(m.layer, m.head, m.query);
      const sequence = Array.from(e.sequence());
      return { ...detail, pieces: e.pieces(sequence.slice(0, detail.keys)), total: sequence.length };
    }
    case 'logit-lens':
      return lensWindow(e, m.window, m.end);
    case 'inspect-json':
      // The document samples with the page's settings; a running generation keeps its own sampler.
      e.setSampler(m.sampler);
      return e.inspectJson(m.prompt, { steps: m.steps });
    case 'residual-norms': {
      // The `window` positions ending before `end`, within what the trace keeps.
      const trace = e.traceInfo();
      const last = Math.min(m.end, trace.positions);
      const begin = Math.max(trace.firstKept, last - m.window, 0);
      const ids = Array.from(e.sequence()).slice(begin, last);
      return { layers: e.info().layers + 1, begin, size: last - begin, norms: e.residualNorms(begin, last), pieces: e.pieces(ids) };
    }
    case 'neurons':
      return { ...e.topNeurons(m.ids, m.layer, m.position, m.k, 3), pieces: e.pieces(m.ids) };
    case 'attention-lab': {
      const started = performance.now();
      const { req: _req, type: _type, ...query } = m;
      const lab = e.attentionLab(query.ids, query.variant, query);
      return {
        ...lab,
        query,
        pieces: e.pieces(query.ids),
        exactTopPieces: e.pieces(lab.exactTop.map((t) => t.id)),
        variantTopPieces: e.pieces(lab.variantTop.map((t) => t.id)),
        exactContinuationPieces: e.pieces(Array.from(lab.exactContinuation)),
        variantContinuationPieces: e.pieces(Array.from(lab.variantContinuation)),
        ms: performance.now() - started,
      };
    }
  }
}

/** The `window` positions ending before `end` (clamped to what is traced), each layer's top token. */
function lensWindow(e: GlassboxEngine, window: number, end: number): LensWindow {
  const trace = e.traceInfo();
  const last = Math.min(end, trace.positions);
  const begin = Math.max(trace.firstKept, last - window, 0);
  const lens = e.logitLens(begin, last, 1);
  const ids = Array.from(lens.ids);
  const inputIds = Array.from(e.sequence()).slice(begin, last);
  return {
    layers: lens.layers,
    begin,
    size: lens.size,
    ids,
    probabilities: Array.from(lens.probabilities),
    pieces: e.pieces(ids),
    inputIds,
    inputPieces: e.pieces(inputIds),
  };
}

/** The sampler's pipeline for the token just drawn, with pieces (undefined when the engine has none). */
export function stepPipeline(e: GlassboxEngine, position: number, topN: number): StepPipeline {
  const p = e.samplingPipeline(topN);
  return { ...p, position, tokens: p.tokens.map((t) => ({ ...t, piece: e.piece(t.id) })) };
}
