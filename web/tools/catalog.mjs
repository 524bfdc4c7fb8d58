// The model catalog at build time: web/models.json lists the models glassbox knows; the models/ folder
// (git-ignored, filled by scripts/fetch-models.sh) holds the ones this machine has. The manifest the page
// reads lists only the entries whose files are all present, with their sizes.
import fs from 'node:fs';
import path from 'node:path';

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * @param {string} catalogPath web/models.json
 * @param {string} modelsDir the folder holding the model files
 * @returns {{manifest: object, files: {name: string, path: string}[], skipped: string[]}}
 */
export function readCatalog(catalogPath, modelsDir) {
  const catalog = JSON.parse(fs.readFileSync(catalogPath, 'utf8'));
  const models = [];
  const files = new Map();
  const skipped = [];
  for (const entry of catalog.models ?? []) {
    const names = [entry.model, entry.tokenizer].filter(Boolean);
    for (const name of names) {
      if (!SAFE_NAME.test(name)) throw new Error(`${catalogPath}: ${entry.id}: "${name}" is not a plain file name`);
    }
    const missing = names.filter((name) => !fs.existsSync(path.join(modelsDir, name)));
    if (missing.length > 0) {
      skipped.push(`${entry.id} (missing ${missing.join(', ')})`);
      continue;
    }
    const describe = (name) => ({ file: name, bytes: fs.statSync(path.join(modelsDir, name)).size });
    models.push({
      id: entry.id,
      name: entry.name ?? entry.id,
      description: entry.description ?? '',
      format: entry.format ?? 'llama2c',
      license: entry.license,
      default: entry.default === true,
      model: describe(entry.model),
      ...(entry.tokenizer ? { tokenizer: describe(entry.tokenizer) } : {}),
    });
    for (const name of names) files.set(name, path.join(modelsDir, name));
  }
  if (models.length > 0 && !models.some((m) => m.default)) models[0].default = true;
  return {
    manifest: { version: 1, models },
    files: [...files].map(([name, filePath]) => ({ name, path: filePath })),
    skipped,
  };
}

export const isSafeName = (name) => SAFE_NAME.test(name);
