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
import { NeuronTable } from './views/neuron-table';
import { ResidualStrip } from './views/residual-strip';

/** Positions the strip shows: the newest ones up to the step, or around it. */
const STRIP_WINDOW = 128;

export function mountModelFlow(client: EngineClient, store: PageStore, current: CurrentStep) {
  const diagram = new FlowDiagram(byId('flow'));
  const strip = new ResidualStrip(byId('flow'));
  const neurons = new NeuronTable(byId('flow'));
  const inFlight = new WorkInFlight();
  const state = () => store.state;
  let request = 0;

  diagram.onFollow = (part) => {
    const heading = byId(part.target);
    (heading.closest('section') ?? heading).scrollIntoView({ block: 'start', behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  };
  strip.onSelect = (position) => current.select(position);
  neurons.onLayer = () => readNeurons();
  neurons.empty('Generate some text: the most active feed-forward neurons at the current step show here.');

  let neuronRequest = 0;
  function readNeurons() {
    const { model, traced, sequence } = state();
    if (!model || model.info.encoder || isGenerating(state())) return;
    const position = Math.min(current.position, traced - 1);
    if (traced === 0 || position < 0) return neurons.empty('Generate some text: the most active feed-forward neurons at the current step show here.');
    const ticket = ++neuronRequest;
    void inFlight.track(
      client.request('neurons', { ids: sequence.slice(0, position + 1), layer: neurons.selectedLayer, position, k: 8 }).then(
        (r) => {
          if (ticket !== neuronRequest || model !== state().model) return;
          store.set({ neurons: r });
          neurons.show(r);
        },
        (error: unknown) => ticket === neuronRequest && neurons.empty(`The neurons could not be read: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  }
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
    if (s.model && !s.model.info.encoder) {
      diagram.setModel(s.model.info);
      neurons.setLayers(s.model.info.layers);
    }
    else diagram.empty('An encoder is loaded: its flow is drawn by the attention card\'s views.');
    store.set({ residualNorms: null, neurons: null });
  }, ['model']);
  current.onChange(() => {
    read();
    readNeurons();
  });
  store.subscribe((s) => {
    if (isGenerating(s)) return;
    read();
    readNeurons();
  }, ['generation']);

  return { whenIdle: () => inFlight.idle() };
}
