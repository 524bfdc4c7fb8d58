// The step inspector: the views of one selected step, wired to the worker and to each other. One current
// step (a position of the sequence, the store's selection) is shared by the prompt strip, the output, the
// attention heatmap, the next-token panel, the sampling pipeline, attention step by step and the logit
// lens; the step control; export. main.ts tells it
// when a generation starts, each token, and when it ends; everything else happens here.
import type { EngineClient, TokenEvent } from './client';
import type { SamplerSettings } from './protocol';
import { isGenerating, type PageStore, type StepRecord } from './state/page-state';
import { CurrentStep } from './ui/current-step';
import { downloadBlob, downloadCanvas } from './ui/download';
import { byId } from './ui/text';
import { WorkInFlight } from './ui/work-in-flight';
import type { AttentionView } from './views/attention';
import { AttentionStepsView } from './views/attention-steps';
import { LogitLensView } from './views/logit-lens';
import { PipelineView } from './views/pipeline';
import { StepControl } from './views/step-control';

/** Positions the logit lens shows at once: the newest ones, or around the selected one. */
const LENS_WINDOW = 16;

export type { StepRecord };

export interface StepInspectorHandlers {
  /** The selection changed: mark the prompt chip and output token, show the next-token step. */
  selected(position: number, step: StepRecord | null): void;
  step(): void; // the Step button
}

export function mountStepInspector(client: EngineClient, attention: AttentionView, store: PageStore, handlers: StepInspectorHandlers) {
  const current = new CurrentStep(store); // the store's selection
  const control = new StepControl(byId('step-control'), current, () => handlers.step());
  const pipelineView = new PipelineView(byId('pipeline'));
  const stepsView = new AttentionStepsView(byId('attention-steps'));
  const lensView = new LogitLensView(byId('logit-lens'));
  // The sequence, its steps, the sampler and the trace's extent are the store's (state/page-state.ts).
  const state = () => store.state;
  const inFlight = new WorkInFlight(); // requests in flight (whenIdle, for the tests)
  const track = <T>(work: Promise<T>) => inFlight.track(work);

  // --- the selection, shown everywhere ---
  let frame = 0;
  let queryShown: number | null = null; // the row the attention view has pinned for us
  current.onChange((position) => {
    const { steps, sampler } = state();
    const step = steps.get(position) ?? null;
    handlers.selected(position, step);
    // Following, the heatmap keeps its own focus; it is told only when the pinned row changes (each call
    // redraws its focus strip).
    const query = current.pinned ? position : null;
    if (query !== queryShown) attention.selectQuery((queryShown = query));
    if (step?.pipeline) pipelineView.show(step.pipeline, step.chosen, step.chosenPiece, sampler, step.index);
    else if (position >= 0) pipelineView.empty(promptNote(position));
    // The worker's answers follow once per frame, however fast the slider moves. While streaming, the
    // worker's time goes to tokens: only a pinned step is read.
    if (isGenerating(state()) && !current.pinned) return;
    if (!frame) frame = requestAnimationFrame(() => {
      frame = 0;
      readDetail();
      const lens = lensView.window;
      const inWindow = lens && current.position >= lens.begin && current.position < lens.begin + lens.size;
      if (inWindow) lensView.mark(current.position);
      else readLens();
    });
  });
  attention.onQuery = (position) => current.select(position);
  attention.onView = () => readDetail();
  lensView.onSelect = (position) => current.select(position);

  function promptNote(position: number) {
    return position < current.promptLength - 1
      ? `Position ${position} is a prompt token: the model read it but did not sample there. The logit lens below shows what it would have predicted.`
      : `Position ${position} has not been sampled from yet.`;
  }

  // --- attention step by step for the selected query and the attention view's head ---
  let detailRequest = 0;
  function readDetail() {
    const query = current.position;
    const { traced } = state();
    if (query < 0 || traced === 0) return stepsView.empty('Generate some text to work through a query here.');
    if (query >= traced) return stepsView.empty(`Token ${query} has not been read yet: the model reads it when it writes the next token.`);
    const request = ++detailRequest;
    void track(client.request('attention-detail', { layer: attention.selectedLayer, head: attention.selectedHead, query })).then(
      (detail) => {
        if (request !== detailRequest) return;
        store.set({ detail });
        stepsView.show(detail);
      },
      (error: unknown) => request === detailRequest && stepsView.empty(`Could not read this query: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  // --- the logit lens around the selected position ---
  let lensRequest = 0;
  function readLens() {
    const { traced } = state();
    if (traced === 0) return lensView.empty('Generate some text: each layer\'s guess for the next token shows here.');
    const position = Math.min(current.position, traced - 1);
    const end = Math.min(traced, Math.max(position + 1 + LENS_WINDOW / 2, LENS_WINDOW));
    const request = ++lensRequest;
    void track(client.request('logit-lens', { window: LENS_WINDOW, end })).then(
      (lens) => {
        if (request !== lensRequest) return;
        store.set({ lens });
        lensView.show(lens, current.position);
      },
      (error: unknown) => request === lensRequest && lensView.empty(`The logit lens could not be read: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  // --- export ---
  const exportJson = byId<HTMLButtonElement>('export-json');
  const exportPng = byId<HTMLButtonElement>('export-png');
  const exportNote = byId('export-note');
  exportJson.addEventListener('click', () => {
    const { generation: last, sampler } = state();
    if (!last || !sampler) return;
    exportNote.textContent = 'Preparing the inspection document…';
    void track(client.request('inspect-json', { prompt: last.prompt, sampler, steps: last.ids.length })).then(
      (json) => {
        store.set({ exported: json });
        downloadBlob(new Blob([json], { type: 'application/json' }), 'glassbox-inspect.json');
        exportNote.textContent = `Saved glassbox-inspect.json (${Math.round(json.length / 1024)} KiB): what "glassbox inspect --json" prints for this prompt and these settings.`;
      },
      (error: unknown) => (exportNote.textContent = `Could not export: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  exportPng.addEventListener('click', () => {
    void downloadCanvas(attention.heatmapCanvas, `glassbox-attention-L${attention.selectedLayer}-H${attention.selectedHead}.png`).then(
      () => (exportNote.textContent = 'Saved the heatmap as a PNG.'),
      (error: unknown) => (exportNote.textContent = error instanceof Error ? error.message : String(error)),
    );
  });

  function setExportable(generating: boolean) {
    const { generation: last, traced } = state();
    exportJson.disabled = generating || !last || last.ids.length === 0;
    exportPng.disabled = generating || traced === 0;
  }
  setExportable(false);

  return {
    current,
    control,
    whenIdle: () => inFlight.idle(),
    modelLoaded() {
      store.set({ sequence: [], steps: new Map(), traced: 0 });
      current.setExtent(-1, -1, 0, false);
      pipelineView.empty('Generate some text: each step shows here how the sampler turned the model\'s probabilities into a choice.');
      stepsView.empty('Pick a token: its query in the selected head is worked through here, number by number.');
      lensView.empty('Generate some text: each layer\'s guess for the next token shows here.');
      setExportable(false);
    },
    /**
     * `ids`: what the engine starts from. A new run: the prompt. A Step continuing a run (`promptLength` given):
     * the prompt and the tokens generated so far, whose steps (drawn then, with the sampler then) stay.
     */
    generationStarted(ids: number[], settings: SamplerSettings, promptLength?: number) {
      const { sequence, sampler } = state();
      const extending = promptLength !== undefined;
      const continues = ids.length > 0 && sequence.length >= ids.length - 1 && ids.every((id, i) => i >= sequence.length || sequence[i] === id);
      const steps = new Map(!continues || (!extending && JSON.stringify(settings) !== JSON.stringify(sampler)) ? [] : state().steps);
      for (const position of [...steps.keys()]) if (position >= ids.length - 1) steps.delete(position);
      store.set({ sampler: settings, sequence: [...ids], steps, traced: extending && continues ? ids.length - 1 : 0 });
      current.setExtent(ids.length - 1, ids.length - 1, promptLength ?? ids.length, continues);
      setExportable(true);
    },
    token(event: TokenEvent) {
      const { sequence, steps } = state();
      const position = sequence.length - 1;
      const step: StepRecord = { index: event.index, chosen: event.id, chosenPiece: event.piece, top: event.top, position, pipeline: event.pipeline ?? null };
      store.set({ steps: new Map(steps).set(position, step), sequence: [...sequence, event.id], traced: position + 1 });
    },
    /** After a token's frame: follows the newest position unless one is pinned. */
    tokenDrawn() {
      current.setExtent(state().sequence.length - 1, state().traced - 1, current.promptLength, true);
    },
    generationDone() {
      current.setExtent(state().sequence.length - 1, state().traced - 1, current.promptLength, true); // the views read their step
      setExportable(false);
    },
  };
}
