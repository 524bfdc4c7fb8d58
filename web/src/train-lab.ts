// The training lab, wired (views/train-lab.ts draws it): its requests go to the worker (worker/train.ts),
// "Use this model" loads the trained weights' GGUF bytes as a dropped file is loaded (main.ts's load, so every
// view follows), "Save in this browser" keeps them in the origin-private file system (saved-models.ts; the model
// panel lists them, and `saved` redraws that list), and the bundled corpus is read from beside the models (scripts/fetch-models.sh copies it).
import type { EngineClient } from './client';
import type { ModelSource } from './protocol';
import { saveModel } from './saved-models';
import { downloadBlob } from './ui/download';
import { byId } from './ui/text';
import { TrainLabView } from './views/train-lab';

/** Where the bundled corpus is served, relative to the page (web/tools/models-plugin.mjs copies it). */
const CORPUS_URL = 'models/tinyshakespeare.txt';

export function mountTrainLab(client: EngineClient, load: (source: ModelSource) => Promise<void>, saved: () => Promise<void>): TrainLabView {
  return new TrainLabView(byId('train-lab'), {
    begin: (config, data, settings) => client.request('train-begin', { config, data, settings }),
    step: (heldOut, induction) => client.request('train-step', { heldOut, induction }),
    gguf: (name) => client.request('train-gguf', { name }),
    use: (bytes, name) => load({ kind: 'files', label: name, model: new File([bytes as BlobPart], name) }),
    async save(bytes, name) {
      const savedAs = await saveModel(name, bytes);
      await saved();
      return savedAs;
    },
    download: (bytes, name) => downloadBlob(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }), name),
    async corpus() {
      const response = await fetch(new URL(CORPUS_URL, document.baseURI));
      return response.ok ? response.text() : null;
    },
  });
}
