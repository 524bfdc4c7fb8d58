// Vite plugin: writes dist/sw.js from web/sw.js once the build is on disk, filling in the build's id and
// the list of files to keep for offline use (every app file, the model manifest and the default model).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function listFiles(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

/** @param {{source: string}} options web/sw.js */
export function serviceWorkerPlugin({ source }) {
  let outDir = 'dist';
  return {
    name: 'glassbox-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    writeBundle() {
      const files = listFiles(outDir).filter((f) => f !== 'sw.js' && !f.startsWith('models/'));
      const manifestPath = path.join(outDir, 'models', 'manifest.json');
      const models = [];
      if (fs.existsSync(manifestPath)) {
        const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
        const preferred = manifest.models.find((m) => m.default) ?? manifest.models[0];
        models.push('models/manifest.json');
        if (preferred) models.push(...[preferred.model, preferred.tokenizer].filter(Boolean).map((f) => `models/${f.file}`));
      }
      const precache = ['./', ...files, ...models];
      const hash = crypto.createHash('sha256');
      for (const file of [...files, ...models]) hash.update(file).update(fs.readFileSync(path.join(outDir, file)));
      const build = hash.digest('hex').slice(0, 12);
      const code = fs
        .readFileSync(source, 'utf8')
        .replace('__GLASSBOX_BUILD__', build)
        .replace('__GLASSBOX_PRECACHE__', JSON.stringify(precache, null, 2));
      fs.writeFileSync(path.join(outDir, 'sw.js'), code);
    },
  };
}
