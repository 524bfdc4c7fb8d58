// The messages of the training lab (views/train-lab.ts, train-lab.ts) between the page and the worker.
// protocol.ts adds them to its unions. The page paces the run: it asks for one step at a time, so Pause and
// Stop take effect between steps and the worker answers other requests (the views' reads) in between.
import type { TrainingRun, TrainingSettings, TrainingStepReport } from '@glassbox/engine';

export type { TrainingRun, TrainingSettings, TrainingStepReport } from '@glassbox/engine';

export type SyntheticTaskName = 'copy' | 'counting' | 'brackets';

/** What a run trains on: a built-in synthetic task (the core's, glassbox/train.hpp), or a text (a bundled corpus or the user's file). */
export type TrainData = { kind: 'synthetic'; task: SyntheticTaskName; length: number; lines: number; seed: number; maxTokens: number } | { kind: 'text'; name: string; text: string };

export type TrainRequest =
  // `config`: a training config's JSON (the loaded model's tokenizer), or '' to fine-tune the loaded model.
  | { type: 'train-begin'; req: number; config: string; data: TrainData; settings: TrainingSettings }
  // One step; with `heldOut` / `induction` the held-out loss / every head's induction score after it.
  | { type: 'train-step'; req: number; heldOut: boolean; induction: boolean }
  | { type: 'train-gguf'; req: number; name: string }
  | { type: 'train-end'; req: number };

export interface TrainBegun {
  run: TrainingRun;
  trainLines: number;
  heldOutLines: number;
  /** Every head's induction score before the first step (layer-major). */
  induction: number[];
  heldOutLoss: number;
}

export interface TrainStepped {
  report: TrainingStepReport;
  heldOutLoss: number | null;
  induction: number[] | null;
}

export interface TrainReplies {
  'train-begin': TrainBegun;
  'train-step': TrainStepped;
  'train-gguf': Uint8Array;
  'train-end': null;
}

const trainKinds: Record<keyof TrainReplies, true> = { 'train-begin': true, 'train-step': true, 'train-gguf': true, 'train-end': true };
export const isTrainRequest = (type: string): type is keyof TrainReplies => Object.hasOwn(trainKinds, type);
