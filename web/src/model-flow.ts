// The flow card, wired: the loaded model's architecture drawn once per model (views/flow-diagram.ts), the
// current step along it (the token, the stream's length entering each layer, the token drawn), and the
// stream's length at every position (views/residual-strip.ts). It follows the one current step and reads
// from the worker only when the generation is not running. main.ts mounts it once.
import type { EngineClient } from './client';
import { isGenerating, type PageStore } from './state/page-state';
import type { CurrentStep } from './ui/current-step';
import { byId } from './ui/text';
import { WorkInFlight } from './ui/work-in-flight';
import { FlowDiagram } from './views/flow-diagram';
import { ResidualStrip } from './views/residual-strip';

/** Positions the strip shows: the newest ones up to the step, or around it. */
const STRIP_WINDOW = 128;

export function mountModelFlow(client: EngineClient, store: PageStore, current: CurrentStep) {
  const diagram = new FlowDiagram(byId('flow'));
  const strip = new ResidualStrip(byId('flow'));
  const inFlight = new WorkInFlight();
  const state = () => store.state;
  let request = 0;

  diagram.onFollow = (part) => {
    const heading = byId(part.target);
    (heading.closest('section') ?? heading).scrollIntoView({ block: 'start', behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  };
  strip.onSelect = (position) => current.select(position);
  strip.empty('Generate some text: the stream\'s length at each position and layer shows here.');

  function read() {
    const { model, traced, steps } = state();
    if (!model || model.info.encoder) return;
    const position = current.position;
    if (traced === 0 || position < 0) {
      diagram.showStep(null);
      strip.empty('Generate some text: the stream\'s length at each position and layer shows here.');
      return;
    }
    if (isGenerating(state())) return;
    const at = Math.min(position, traced - 1);
    const end = Math.min(traced, Math.max(at + 1 + STRIP_WINDOW / 4, STRIP_WINDOW));
    const ticket = ++request;
    void inFlight.track(
      client.request('residual-norms', { window: STRIP_WINDOW, end }).then(
        (r) => {
          if (ticket !== request || model !== state().model) return;
          store.set({ residualNorms: r });
          const column = at - r.begin;
          const norms = column >= 0 && column < r.size ? Array.from({ length: r.layers }, (_, row) => r.norms[row * r.size + column]) : null;
          const step = steps.get(position);
          diagram.showStep({
            position,
            piece: r.pieces[column] ?? new Uint8Array(),
            chosen: step ? { piece: step.chosenPiece, probability: step.top.find((t) => t.id === step.chosen)?.probability ?? 0 } : null,
            norms,
          });
          strip.show(r, position);
        },
        (error: unknown) => ticket === request && strip.empty(`The stream could not be read: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  }

  store.subscribe((s) => {
    if (s.model && !s.model.info.encoder) diagram.setModel(s.model.info);
    else diagram.empty('An encoder is loaded: its flow is drawn by the attention card\'s views.');
    store.set({ residualNorms: null });
  }, ['model']);
  current.onChange(() => read());
  store.subscribe((s) => {
    if (!isGenerating(s)) read();
  }, ['generation']);

  return { whenIdle: () => inFlight.idle() };
}
