#!/usr/bin/env node
// Speed of glassbox next to llama.cpp, in one run on this machine, one thread each:
//   native:  `glassbox bench` against llama.cpp's prebuilt CPU build (node-llama-cpp)
//   browser: glassbox's WebAssembly engine against wllama (llama.cpp compiled to WebAssembly), both in
//            headless Chromium on the same page
// Both engines read the same GGUF file and process the same prompt tokens, then generate greedily.
//   node tests/peers/bench.mjs [--model models/stories260K.gguf] [--gen 224] [--repeat 5]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../web/tools/static-server.mjs';
import { cli, llamaCpp, modelsDir, repo } from './helpers.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const model = path.resolve(args.model ?? path.join(modelsDir, 'stories260K.gguf'));
const gen = Number(args.gen ?? 224);
const repeat = Number(args.repeat ?? 5);
// About 32 tokens with stories260K's vocabulary; the same ids go to every engine.
const promptText = args.prompt ?? 'Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her dog.';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => x.toFixed(0).padStart(9);

function glassboxNative() {
  const promptIds = JSON.parse(execFileSync(cli, ['tokenize', '--tokenizer', model, '--text', promptText, '--json'], { encoding: 'utf8' })).ids;
  // `glassbox bench` feeds as many prompt tokens (which ids does not change the work), then generates.
  const result = JSON.parse(execFileSync(cli, ['bench', '--model', model, '--prompt-tokens', String(promptIds.length),
    '--gen-tokens', String(gen), '--repeat', String(repeat), '--threads', '1', '--json'], { encoding: 'utf8' }));
  return { promptIds, prompt: result.prompt_tokens_per_s, gen: result.gen_tokens_per_s };
}

async function llamaCppNative(promptIds) {
  const llama = await llamaCpp();
  const m = await llama.loadModel({ modelPath: model });
  const prompts = [], gens = [];
  for (let r = 0; r < repeat; r++) {
    const context = await m.createContext({ contextSize: 512, batchSize: 512, threads: 1 });
    const sequence = context.getSequence();
    const t0 = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(promptIds);
    const t1 = performance.now();
    let count = 0;
    const t2 = performance.now();
    for await (const token of sequence.evaluate([promptIds[promptIds.length - 1]], { temperature: 0 })) {
      void token;
      if (++count >= gen) break;
    }
    const t3 = performance.now();
    prompts.push(promptIds.length / ((t1 - t0) / 1000));
    gens.push(gen / ((t3 - t2) / 1000));
    await context.dispose();
  }
  await m.dispose();
  await llama.dispose();
  // The package's own version: the llama.cpp release tag it records is not a llama.cpp build number.
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'tests', 'peers', 'node_modules', 'node-llama-cpp', 'package.json'), 'utf8'));
  return { prompt: median(prompts), gen: median(gens), version };
}

async function browser() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-bench-'));
  fs.cpSync(path.join(repo, 'tests', 'peers', 'bench-page', 'bench.html'), path.join(root, 'bench.html'));
  fs.mkdirSync(path.join(root, 'engine'));
  for (const f of ['glassbox-engine.mjs', 'glassbox-engine.wasm']) fs.cpSync(path.join(repo, 'build-wasm', f), path.join(root, 'engine', f));
  fs.cpSync(path.join(repo, 'wasm', 'engine.js'), path.join(root, 'engine', 'engine.js'));
  fs.cpSync(path.join(repo, 'tests', 'peers', 'node_modules', '@wllama', 'wllama', 'esm'), path.join(root, 'wllama'), { recursive: true });
  fs.cpSync(model, path.join(root, 'model.gguf'));
  const server = await startStaticServer({ root });
  const browserProcess = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browserProcess.newPage();
    const query = new URLSearchParams({ model: 'model.gguf', prompt: promptText, gen: String(gen), repeat: String(repeat) });
    await page.goto(`${server.url}bench.html?${query}`);
    await page.waitForFunction(() => window.benchResults !== undefined, null, { timeout: 600_000 });
    const results = await page.evaluate(() => window.benchResults);
    if (!results.ok) throw new Error(results.error);
    return { ...results, chromium: browserProcess.version() };
  } finally {
    await browserProcess.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const native = glassboxNative();
const peer = await llamaCppNative(native.promptIds);
const web = await browser();
const wasmBytes = fs.statSync(path.join(repo, 'build-wasm', 'glassbox-engine.wasm')).size;
console.log(`model ${path.basename(model)}, prompt ${native.promptIds.length} tokens, ${gen} generated, median of ${repeat}, 1 thread`);
console.log(`${''.padEnd(44)}   prompt tok/s   generation tok/s`);
const row = (name, r) => console.log(`${name.padEnd(44)} ${fmt(r.prompt)}      ${fmt(r.gen)}`);
row('glassbox native', native);
row(`llama.cpp native (node-llama-cpp ${peer.version})`, peer);
row('glassbox WASM SIMD in Chromium', web.glassbox);
row(`${web.wllama.engine} in Chromium`, web.wllama);
console.log(`ratios glassbox / llama.cpp: native prompt ${(native.prompt / peer.prompt).toFixed(2)}, generation ${(native.gen / peer.gen).toFixed(2)}; ` +
  `browser prompt ${(web.glassbox.prompt / web.wllama.prompt).toFixed(2)}, generation ${(web.glassbox.gen / web.wllama.gen).toFixed(2)}`);
console.log(`browser / native glassbox: generation ${(web.glassbox.gen / native.gen).toFixed(2)}; Chromium ${web.chromium}; glassbox-engine.wasm ${wasmBytes} bytes`);
