// The worker's side of the circuit tools: direct logit attribution at a step, and activation patching run a
// few cells per task, so progress is reported and a 'patch-cancel' (or a newer patch) is heard between them.
// Every number comes from the engine; this file only moves them.
import type { GlassboxEngine, PatchingPlan } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isCircuitsRequest, type CircuitsRequest } from '../protocol-circuits';
import { explain } from './explain';

type Post = (message: FromWorker, transfer?: Transferable[]) => void;

/** Cells per task: small enough that a cancel is heard within a fraction of a second on a 135M model. */
const CELLS_PER_TASK = 2;

let patching: { req: number; plan: PatchingPlan } | null = null;

/** Handles one of the circuit tools' messages; false for any other. */
export function handleCircuits(engine: GlassboxEngine | null, post: Post, message: { type: string }): boolean {
  if (!isCircuitsRequest(message.type)) return false;
  const m = message as CircuitsRequest;
  if (m.type === 'patch-cancel') {
    stopPatching(post, 'Patching was cancelled');
    return true;
  }
  const fail = (error: unknown, title: string) => post({ type: 'reply', req: m.req, ok: false, error: explain(error, title) });
  if (!engine) {
    fail(new Error('The engine is still starting'), 'The engine is not ready');
    return true;
  }
  try {
    if (m.type === 'logit-attribution') {
      const a = engine.logitAttribution(m.position, m.token, m.baseline);
      post(replyTo(m.type, m.req, { ...a, tokenPiece: engine.piece(m.token), baselinePiece: m.baseline >= 0 ? engine.piece(m.baseline) : null }));
    } else {
      startPatching(engine, post, m.req, m.clean, m.corrupt, m.target);
    }
  } catch (error) {
    fail(error, m.type === 'patch' ? 'Patching could not start' : 'The logit could not be split');
  }
  return true;
}

function stopPatching(post: Post, title: string) {
  if (!patching) return;
  patching.plan.cancel();
  post({ type: 'reply', req: patching.req, ok: false, error: { title, code: 'cancelled' } });
  patching = null;
}

/** The target as the person typed it: empty (the clean run's top token), a token's text, or an id. */
function targetId(engine: GlassboxEngine, target: string): number {
  const text = target.trim() === '' ? '' : target;
  if (text === '') return -1;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const tokens = engine.tokenize(text, false);
  if (tokens.length !== 1) throw new Error(`The target “${text}” is ${tokens.length} tokens; give one token (its text or its id).`);
  return tokens[0].id;
}

function startPatching(engine: GlassboxEngine, post: Post, req: number, clean: string, corrupt: string, target: string) {
  stopPatching(post, 'Patching was replaced by a newer request');
  const started = performance.now();
  const cleanIds = engine.tokenize(clean, true).map((t) => t.id);
  const corruptIds = engine.tokenize(corrupt, true).map((t) => t.id);
  const plan = engine.beginPatching(cleanIds, corruptIds, targetId(engine, target));
  patching = { req, plan };
  post({ type: 'measure-progress', req, completed: 0, total: plan.total });
  const next = () => {
    if (patching?.req !== req) return; // cancelled or replaced
    try {
      const step = plan.step(CELLS_PER_TASK);
      post({ type: 'measure-progress', req, completed: step.done, total: step.total });
      if (!step.finished) {
        setTimeout(next, 0);
        return;
      }
      patching = null;
      post(
        replyTo('patch', req, {
          cleanIds,
          corruptIds,
          cleanPieces: engine.pieces(cleanIds),
          corruptPieces: engine.pieces(corruptIds),
          target: step.target!,
          targetPiece: engine.piece(step.target!),
          metricClean: step.metricClean!,
          metricCorrupt: step.metricCorrupt!,
          layers: plan.layers,
          heads: plan.heads,
          positions: plan.positions,
          residual: step.residual!,
          headEffects: step.heads!,
          runs: step.runs!,
          ms: performance.now() - started,
        }),
      );
    } catch (error) {
      patching = null;
      post({ type: 'reply', req, ok: false, error: explain(error, 'Patching failed') });
    }
  };
  setTimeout(next, 0);
}
