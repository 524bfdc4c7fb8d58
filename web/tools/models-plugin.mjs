// Vite plugin: /models/ for the page. The dev server answers /models/manifest.json and the model files
// straight from the repository's models/ folder; the build copies the catalog's present files into
// dist/models/ and writes dist/models/manifest.json.
import fs from 'node:fs';
import path from 'node:path';
import { isSafeName, readCatalog } from './catalog.mjs';

/** Texts beside the models that the page reads when present (the training lab's bundled corpus). */
const TEXTS = ['tinyshakespeare.txt'];

/** @param {{catalog: string, modelsDir: string}} options */
export function modelsPlugin({ catalog, modelsDir }) {
  return {
    name: 'glassbox-models',

    configureServer(server) {
      server.middlewares.use('/models', (req, res, next) => {
        const name = decodeURIComponent((req.url ?? '/').split('?')[0].replace(/^\/+/, ''));
        if (name === 'manifest.json') {
          const { manifest } = readCatalog(catalog, modelsDir);
          res.setHeader('Content-Type', 'application/json');
          res.setHeader('Cache-Control', 'no-cache');
          res.end(JSON.stringify(manifest, null, 2));
          return;
        }
        const file = path.join(modelsDir, name);
        if (!isSafeName(name) || !fs.existsSync(file)) return next();
        res.setHeader('Content-Type', 'application/octet-stream');
        res.setHeader('Content-Length', String(fs.statSync(file).size));
        fs.createReadStream(file).pipe(res);
      });
    },

    generateBundle() {
      const { manifest, files, skipped } = readCatalog(catalog, modelsDir);
      for (const { name, path: filePath } of files) {
        this.emitFile({ type: 'asset', fileName: `models/${name}`, source: fs.readFileSync(filePath) });
      }
      for (const name of TEXTS) {
        const file = path.join(modelsDir, name);
        if (fs.existsSync(file)) this.emitFile({ type: 'asset', fileName: `models/${name}`, source: fs.readFileSync(file) });
      }
      this.emitFile({ type: 'asset', fileName: 'models/manifest.json', source: JSON.stringify(manifest, null, 2) });
      const listed = manifest.models.map((m) => m.id).join(', ') || 'none';
      this.info?.(`models: ${listed}${skipped.length ? `; not in ${modelsDir}: ${skipped.join('; ')}` : ''}`);
      if (manifest.models.length === 0) {
        this.warn(`no catalog model is present in ${modelsDir}: run scripts/fetch-models.sh to fill it`);
      }
    },
  };
}
