// The worker's side of the anatomy's "Cost against length" plot: the engine measures (wasm/bind_length_cost.cpp);
// this file only moves the answers.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isLengthCostRequest, type LengthCostRequest } from '../protocol-length-cost';
import { explain } from './explain';

/** Handles one of the plot's requests; false for any other message. */
export function handleLengthCost(engine: GlassboxEngine | null, post: (message: FromWorker) => void, message: { type: string }): boolean {
  if (!isLengthCostRequest(message.type)) return false;
  const m = message as LengthCostRequest;
  try {
    if (!engine) throw new Error('The engine is still starting');
    if (m.type === 'length-cost-plan') post(replyTo(m.type, m.req, engine.lengthCostPlan()));
    else post(replyTo(m.type, m.req, engine.lengthCost(m.attention, m.length, m.repeat)));
  } catch (error) {
    post({ type: 'reply', req: m.req, ok: false, error: explain(error, 'The cost against length could not be measured') });
  }
  return true;
}
