// The worker's side of the training lab: the engine trains (wasm/bind_train.cpp, glassbox::Trainer); this
// file picks the held-out lines and moves the answers. A synthetic task's held-out lines are the same task
// under another seed; a text's are every tenth non-blank line, left out of the training lines.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type FromWorker } from '../protocol';
import { isTrainRequest, type TrainData, type TrainRequest } from '../protocol-train';
import { explain } from './explain';

/** Held-out lines the loss is measured on (each is one forward pass, every few steps). */
const HELD_OUT_LINES = 32;

function splitData(engine: GlassboxEngine, data: TrainData): { train: string; heldOut: string } {
  if (data.kind === 'synthetic') {
    const task = { task: data.task, length: data.length, maxTokens: data.maxTokens };
    return {
      train: engine.syntheticTask({ ...task, lines: data.lines, seed: data.seed }),
      heldOut: engine.syntheticTask({ ...task, lines: HELD_OUT_LINES, seed: data.seed + 1_000_003 }),
    };
  }
  const train: string[] = [];
  const heldOut: string[] = [];
  let n = 0;
  for (const line of data.text.split('\n')) {
    if (line.trim() === '') continue;
    if (n++ % 10 === 9 && heldOut.length < HELD_OUT_LINES) heldOut.push(line);
    else train.push(line);
  }
  return { train: train.join('\n'), heldOut: heldOut.join('\n') };
}

let heldOutText = '';

/** Handles one of the lab's requests; false for any other message. */
export function handleTrain(engine: GlassboxEngine | null, post: (message: FromWorker, transfer?: Transferable[]) => void, message: { type: string }): boolean {
  if (!isTrainRequest(message.type)) return false;
  const m = message as TrainRequest;
  try {
    if (!engine) throw new Error('The engine is still starting');
    switch (m.type) {
      case 'train-begin': {
        engine.trainEnd();
        const { train, heldOut } = splitData(engine, m.data);
        const run = engine.trainBegin(m.config, train, m.settings);
        heldOutText = heldOut;
        const count = (text: string) => (text === '' ? 0 : text.split('\n').length);
        post(replyTo(m.type, m.req, { run, trainLines: count(train), heldOutLines: count(heldOut), induction: engine.trainInduction(), heldOutLoss: heldOut ? engine.trainHeldOut(heldOut) : NaN }));
        break;
      }
      case 'train-step': {
        const report = engine.trainStep();
        const heldOutLoss = m.heldOut && heldOutText ? engine.trainHeldOut(heldOutText) : null;
        post(replyTo(m.type, m.req, { report, heldOutLoss, induction: m.induction ? engine.trainInduction() : null }));
        break;
      }
      case 'train-gguf': {
        const bytes = engine.trainGguf(m.name);
        post(replyTo(m.type, m.req, bytes), [bytes.buffer]);
        break;
      }
      case 'train-end':
        engine.trainEnd();
        heldOutText = '';
        post(replyTo(m.type, m.req, null));
        break;
    }
  } catch (error) {
    const report = explain(error, m.type === 'train-step' ? 'Training stopped' : 'Training could not start');
    // A step's failure (a NaN loss names its step in the detail) is a stop, whatever its code's headline.
    post({ type: 'reply', req: m.req, ok: false, error: m.type === 'train-step' ? { ...report, title: 'Training stopped' } : report });
  }
  return true;
}
