// One-off measurement (not a test): how long the page's activation patching takes on a model of a given size.
// Loads MODEL (a GGUF with its tokenizer) into the page in Chromium from a local server, runs the circuits
// card's patching on CLEAN and CORRUPT (prompts of the same token length) as a person would, and prints the
// time the worker reports (its forward passes, one thread, as the page's side runs take) and the wall time
// from the click to the maps drawn. Compare with `glassbox patch --model MODEL --clean … --corrupt … --threads 1`.
//   node scripts/patching-time-in-page.mjs MODEL CLEAN CORRUPT [SCREENSHOT.png]
// Needs dist/ (npm run build) and Debian's chromium, as the browser tests do.
import fs from 'node:fs';
import path from 'node:path';
import { openPage, startEnvironment, whenModelLoaded } from '../tests/browser/harness.mjs';

const [model, clean, corrupt, shot] = process.argv.slice(2);

/** CPU seconds (user + system) of this process's descendants (the browser's processes), from /proc. */
function browserCpuSeconds() {
  const stats = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return [{ pid: Number(pid), parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 }];
    } catch {
      return []; // gone meanwhile
    }
  });
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) if (!ours.has(s.pid) && ours.has(s.parent)) (ours.add(s.pid), (grew = true));
  }
  return stats.filter((s) => s.pid !== process.pid && ours.has(s.pid)).reduce((sum, s) => sum + s.cpu, 0);
}
if (!model || !clean || !corrupt) {
  console.error('usage: node scripts/patching-time-in-page.mjs MODEL CLEAN CORRUPT [SCREENSHOT.png]');
  process.exit(2);
}
const env = await startEnvironment();
try {
  const models = await env.startServer({ root: path.dirname(path.resolve(model)), base: '/measure/', cors: true });
  const { page, errors } = await openPage(env);
  await whenModelLoaded(page);
  const loadStarted = Date.now();
  await page.click('#url-source summary');
  await page.fill('#model-url', new URL(path.basename(model), models.url).href);
  await page.click('#url-form button[type="submit"]');
  const info = await whenModelLoaded(page, 2, 600_000);
  console.log(`loaded ${info.parameters} parameters (${info.layers} layers, dim ${info.dim}, ${info.heads}/${info.kvHeads} heads) in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
  await page.locator('#patching-card').scrollIntoViewIfNeeded();
  await page.fill('#patch-clean', clean);
  await page.fill('#patch-corrupt', corrupt);
  const started = Date.now();
  const cpuBefore = browserCpuSeconds();
  await page.click('#patch-run');
  await page.waitForFunction(() => window.__glassbox.circuits.patch !== null, null, { timeout: 1_800_000, polling: 500 });
  const wall = (Date.now() - started) / 1000;
  const cpu = browserCpuSeconds() - cpuBefore;
  const r = await page.evaluate(() => {
    const p = window.__glassbox.circuits.patch;
    return { runs: p.runs, ms: p.ms, positions: p.positions, layers: p.layers, status: document.querySelector('.patch-status').textContent };
  });
  console.log(`patching: ${r.positions} tokens, ${r.runs} forward passes, worker ${(r.ms / 1000).toFixed(1)} s, wall ${wall.toFixed(1)} s, browser CPU ${cpu.toFixed(1)} s`);
  console.log(`page says: ${r.status}`);
  if (shot) await page.locator('#patching-card').screenshot({ path: shot });
  if (errors.length) console.log('errors:', errors);
  await models.close();
} finally {
  await env.close();
}
