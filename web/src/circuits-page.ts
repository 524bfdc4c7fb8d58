// The circuit tools, wired: direct logit attribution at the current step (views/attribution.ts) and
// activation patching between two prompts (views/patching.ts), both computed in the worker. Attribution
// follows the one current step; patching runs on its button, with progress, and stops on Cancel.
import type { EngineClient } from './client';
import type { AttributionReply, PatchReply } from './protocol-circuits';
import { isGenerating, type PageStore } from './state/page-state';
import type { CurrentStep } from './ui/current-step';
import { byId } from './ui/text';
import { WorkInFlight } from './ui/work-in-flight';
import { AttributionView, type Candidate } from './views/attribution';
import { PatchingView } from './views/patching';

export function mountCircuits(client: EngineClient, store: PageStore, current: CurrentStep) {
  const attribution = new AttributionView(byId('attribution'));
  const patching = new PatchingView(byId('patching'));
  const inFlight = new WorkInFlight();
  const state = () => store.state;
  let lastAttribution: AttributionReply | null = null;
  let lastPatch: PatchReply | null = null;
  let request = 0;
  let candidatesAt = -2;

  /** The token that came after the step, then the step's other candidates (where it was sampled). */
  function candidates(position: number): Candidate[] {
    const { sequence, steps } = state();
    const list: Candidate[] = [];
    const step = steps.get(position);
    const next = sequence[position + 1];
    if (next !== undefined) list.push({ id: next, piece: step?.chosen === next ? step.chosenPiece : (step?.top.find((t) => t.id === next)?.piece ?? new Uint8Array()) });
    for (const t of step?.top ?? []) if (!list.some((c) => c.id === t.id)) list.push({ id: t.id, piece: t.piece });
    return list;
  }

  function readAttribution() {
    const { model, traced } = state();
    if (!model || model.info.encoder) return;
    const position = Math.min(current.position, traced - 1);
    if (traced === 0 || position < 0) return attribution.empty('Generate some text: the current step\'s logit is split here.');
    if (model.info.normPlacement === 'post') return attribution.empty('This model normalizes the stream itself after every block (Post-LN), so no sum of parts reaches the output: its logits cannot be split this way.');
    if (isGenerating(state())) return;
    if (position !== candidatesAt) {
      const list = candidates(position);
      if (list.length === 0) return attribution.empty('No token follows this position yet.');
      attribution.setCandidates(list);
      candidatesAt = position;
    }
    const ticket = ++request;
    void inFlight.track(
      client.request('logit-attribution', { position, token: attribution.token, baseline: attribution.baseline }).then(
        (a) => {
          if (ticket !== request || model !== state().model) return;
          lastAttribution = a;
          attribution.show(a);
        },
        (error: unknown) => ticket === request && attribution.empty(`The logit could not be split: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  }

  attribution.onChange = readAttribution;
  current.onChange(() => readAttribution());
  store.subscribe((s) => {
    candidatesAt = -2;
    lastAttribution = null;
    lastPatch = null;
    patching.setEnabled(!!s.model && !s.model.info.encoder);
  }, ['model']);
  store.subscribe((s) => {
    if (!isGenerating(s)) {
      candidatesAt = -2;
      readAttribution();
    }
  }, ['generation']);

  patching.onRun = () => {
    const model = state().model;
    if (!model) return;
    patching.working(0, 1);
    void inFlight.track(
      client
        .request('patch', { clean: patching.clean.value, corrupt: patching.corrupt.value, target: patching.target.value }, (done, total) => {
          if (model === state().model) patching.working(done, total);
        })
        .then(
          (r) => {
            if (model !== state().model) return;
            lastPatch = r;
            patching.show(r);
          },
          (error: unknown) => patching.finished(error instanceof Error ? error.message : String(error)),
        ),
    );
  };
  patching.onCancel = () => client.cancelPatching();

  return {
    whenIdle: () => inFlight.idle(),
    get attribution() {
      return lastAttribution;
    },
    get patch() {
      return lastPatch;
    },
  };
}
