// The attention lab, wired: the text up to the current step (the one selection every view follows) is read
// by the worker with exact attention and with the approximation the controls choose, and redrawn as the
// sliders move (answers to older settings are dropped). It waits while a generation runs, and reads only while
// its card is in sight. main.ts mounts it once; it hears the model, the generation and the step from the store.
import type { EngineClient } from './client';
import type { LabQuery } from './protocol-step-inspector';
import { isGenerating, type PageStore } from './state/page-state';
import type { CurrentStep } from './ui/current-step';
import { byId } from './ui/text';
import { WorkInFlight } from './ui/work-in-flight';
import { AttentionLabView } from './views/attention-lab';
import { LabVariantPicker } from './views/lab-variant-picker';

/** Tokens each attention writes on from the step. */
const CONTINUE_TOKENS = 24;
/** Positions whose next-token distributions are compared (each is two products with the unembedding). */
const COMPARED_POSITIONS = 128;
/** How long the sliders rest before the worker is asked (a drag asks once per pause, not once per pixel). */
const SETTLE_MS = 120;

export function mountAttentionLab(client: EngineClient, store: PageStore, current: CurrentStep) {
  const root = byId('attention-lab');
  const picker = new LabVariantPicker(root);
  const view = new AttentionLabView(root);
  const inFlight = new WorkInFlight();
  const state = () => store.state;
  let request = 0;
  let timer = 0;
  let inSight = false;
  let stale = true; // something changed since the last reading
  let asked = false; // the lab's own controls changed: read even if the card has just scrolled away

  view.onSelect = (position) => current.select(position);
  view.empty('Generate some text, then choose an approximation: the lab reads the text up to the current step with both attentions.');

  function schedule(byControls = false) {
    stale = true;
    asked ||= byControls;
    clearTimeout(timer);
    timer = window.setTimeout(read, SETTLE_MS);
  }

  function read() {
    timer = 0;
    const { model, sequence } = state();
    if (!model || (!inSight && !asked)) return;
    asked = false;
    if (isGenerating(state())) return view.working('The lab reads again when the generation ends.');
    const position = current.position;
    if (sequence.length === 0 || position < 0) return view.empty('Generate some text, then choose an approximation: the lab reads the text up to the current step with both attentions.');
    const ids = sequence.slice(0, position + 1);
    picker.setLength(ids.length);
    const query: LabQuery = {
      ids,
      variant: picker.variant,
      layer: picker.selectedLayer,
      head: picker.selectedHead,
      continueTokens: CONTINUE_TOKENS,
      comparedPositions: COMPARED_POSITIONS,
    };
    stale = false;
    const ticket = ++request;
    view.working(`Reading ${ids.length} tokens with exact attention and ${query.variant}…`);
    void inFlight.track(
      client.request('attention-lab', query).then(
        (result) => {
          if (ticket !== request || model !== state().model) return;
          store.set({ lab: result });
          view.show(result, query.layer, query.head);
        },
        (error: unknown) => ticket === request && view.error(`The lab could not compare: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  }

  picker.onChange = () => schedule(true);
  current.onChange(() => schedule());
  store.subscribe((s) => {
    const info = s.model?.info;
    if (info) picker.setModel(info.layers, info.heads, picker.selectedLayer, picker.selectedHead);
    store.set({ lab: null });
    schedule();
  }, ['model']);
  store.subscribe((s) => {
    picker.setDisabled(isGenerating(s));
    if (!isGenerating(s)) schedule();
  }, ['generation']);
  new IntersectionObserver((entries) => {
    inSight = entries.some((e) => e.isIntersecting);
    if (inSight && stale) schedule();
  }).observe(root);

  return {
    picker,
    /** The lab's requests answered and drawn, and none waiting to be sent (for the browser tests). */
    whenIdle: async () => {
      while (timer) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      await inFlight.idle();
    },
  };
}
