// Training's gradients against an independent autograd: TensorFlow.js (its CPU backend, float32) computes
// the loss of stories260K on one line and differentiates it by every weight with its own reverse mode, from a
// forward pass written here in its ops straight from llama2.c's run.c (RMSNorm, RoPE on adjacent pairs,
// grouped-query attention, SwiGLU, the tied classifier); and the same for a GPT-2 trained from a --config, from
// GPT-2's forward pass (LayerNorm with biases, learned positions, q|k|v fused with their biases, GELU (tanh),
// biased projections, the tied classifier), its weights read from the gpt2 GGUF file glassbox wrote. glassbox's
// side is the CLI a script would call:
// `glassbox train --save-gradients` writes step 0's gradients (before any update) as safetensors under the
// GGUF names, and `glassbox score` gives the tokens and the loss. Nothing is shared but the model file.
//
// Tolerances (float32 reverse mode against glassbox's): the loss within 1e-5 relative; each tensor's gradient
// within 1e-4 of its largest |element| (element by element; measured 7e-6 on stories260K, 8e-7 on the GPT-2), and its norm within 1e-4 relative.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cli, glassbox, modelsDir, requireFiles } from './helpers.mjs';

const model = path.join(modelsDir, 'stories260K.bin');
const tokenizer = path.join(modelsDir, 'tok512.bin');
const LINE = 'Once upon a time, there was a little girl named Lily. She loved to play outside.';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-autograd-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * TensorFlow.js's core with every op's gradient registered, on its CPU backend. The gradients ship only as
 * ES modules whose imports name files without their extension (a bundler resolves them): a resolve hook adds
 * ".js" (or "/index.js") where Node finds no such file. They register into the registry tfjs keeps on globalThis, which the
 * CommonJS build used here reads.
 */
async function tensorflow() {
  const hook = `export async function resolve(specifier, context, next) {
    try { return await next(specifier, context); } catch (error) {
      const missing = error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'ERR_UNSUPPORTED_DIR_IMPORT';
      if (!missing || !/^\\.\\.?\\//.test(specifier)) throw error;
      try { return await next(specifier + '.js', context); } catch { return next(specifier + '/index.js', context); }
    }
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  await import('@tensorflow/tfjs-backend-cpu');
  await tf.setBackend('cpu');
  return tf;
}

/** llama2.c's checkpoint: the config header and the weights in run.c's order, as named GGUF tensors. */
function readLlama2c(file) {
  const bytes = fs.readFileSync(file);
  const header = new Int32Array(bytes.buffer, bytes.byteOffset, 7);
  const [dim, hidden, layers, heads, kvHeads, signedVocab, seqLen] = header;
  const vocab = Math.abs(signedVocab);
  const headDim = dim / heads;
  const kvDim = (dim * kvHeads) / heads;
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 28, bytes.byteOffset + bytes.length));
  let at = 0;
  const take = (n) => floats.subarray(at, (at += n));
  const perLayer = (n) => Array.from({ length: layers }, () => take(n));
  const w = { token_embd: take(vocab * dim) };
  const attnNorm = perLayer(dim), wq = perLayer(dim * dim), wk = perLayer(kvDim * dim), wv = perLayer(kvDim * dim);
  const wo = perLayer(dim * dim), ffnNorm = perLayer(dim), w1 = perLayer(hidden * dim), w2 = perLayer(dim * hidden), w3 = perLayer(hidden * dim);
  const outputNorm = take(dim);
  take(seqLen * headDim); // freq_cis_real and _imag: RoPE's tables, computed below instead
  const tensors = { 'token_embd.weight': [w.token_embd, [vocab, dim]], 'output_norm.weight': [outputNorm, [dim]] };
  for (let l = 0; l < layers; l++) {
    const b = `blk.${l}.`;
    Object.assign(tensors, {
      [`${b}attn_norm.weight`]: [attnNorm[l], [dim]],
      [`${b}attn_q.weight`]: [wq[l], [dim, dim]],
      [`${b}attn_k.weight`]: [wk[l], [kvDim, dim]],
      [`${b}attn_v.weight`]: [wv[l], [kvDim, dim]],
      [`${b}attn_output.weight`]: [wo[l], [dim, dim]],
      [`${b}ffn_norm.weight`]: [ffnNorm[l], [dim]],
      [`${b}ffn_gate.weight`]: [w1[l], [hidden, dim]],
      [`${b}ffn_down.weight`]: [w2[l], [dim, hidden]],
      [`${b}ffn_up.weight`]: [w3[l], [hidden, dim]],
    });
  }
  assert.ok(signedVocab > 0, 'stories260K shares its classifier with the token embedding');
  return { config: { dim, hidden, layers, heads, kvHeads, vocab, headDim }, tensors };
}

/** A safetensors file's tensors: {name: {shape, data: Float32Array}} (F32 only). */
function readSafetensors(file) {
  const bytes = fs.readFileSync(file);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const out = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    assert.equal(info.dtype, 'F32', name);
    const [begin, end] = info.data_offsets;
    const start = 8 + headerLength + begin;
    out[name] = { shape: info.shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + end - begin)) };
  }
  return out;
}

/** The mean next-token cross-entropy of `tokens`, in TensorFlow.js ops, from run.c's forward pass. */
function lossOf(tf, c, v, tokens) {
  const T = tokens.length;
  const rmsnorm = (x, weight) => tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), 1e-5))), weight);
  // RoPE on adjacent pairs (x[2i], x[2i+1]) of each head, at angle pos * 10000^(-2i / head_dim).
  const half = c.headDim / 2;
  const angles = [];
  for (let p = 0; p < T; p++) for (let i = 0; i < half; i++) angles.push(p * Math.pow(10000, (-2 * i) / c.headDim));
  const cos = tf.reshape(tf.cos(tf.tensor(angles)), [T, 1, half]);
  const sin = tf.reshape(tf.sin(tf.tensor(angles)), [T, 1, half]);
  const rope = (x, heads) => {
    const pairs = tf.reshape(x, [T, heads, half, 2]);
    const [a, b] = tf.split(pairs, 2, 3).map((t) => tf.reshape(t, [T, heads, half]));
    const turned = tf.stack([tf.sub(tf.mul(a, cos), tf.mul(b, sin)), tf.add(tf.mul(a, sin), tf.mul(b, cos))], 3);
    return tf.reshape(turned, [T, heads * c.headDim]);
  };
  const causal = tf.tensor2d(Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -1e9 : 0)), [T, T]);
  const perHead = (x, heads) => tf.transpose(tf.reshape(x, [T, heads, c.headDim]), [1, 0, 2]); // [heads, T, hd]
  const group = c.heads / c.kvHeads;
  const kvOf = tf.tensor1d(Array.from({ length: c.heads }, (_, h) => Math.floor(h / group)), 'int32');
  const linear = (x, w) => tf.matMul(x, w, false, true); // w is [out][in], as stored

  let x = tf.gather(v['token_embd.weight'], tf.tensor1d(tokens, 'int32'));
  for (let l = 0; l < c.layers; l++) {
    const b = `blk.${l}.`;
    const n = rmsnorm(x, v[`${b}attn_norm.weight`]);
    const q = perHead(rope(linear(n, v[`${b}attn_q.weight`]), c.heads), c.heads);
    const k = tf.gather(perHead(rope(linear(n, v[`${b}attn_k.weight`]), c.kvHeads), c.kvHeads), kvOf);
    const val = tf.gather(perHead(linear(n, v[`${b}attn_v.weight`]), c.kvHeads), kvOf);
    const scores = tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(c.headDim)), causal);
    const heads = tf.matMul(tf.softmax(scores), val); // [heads, T, hd]
    const joined = tf.reshape(tf.transpose(heads, [1, 0, 2]), [T, c.dim]);
    x = tf.add(x, linear(joined, v[`${b}attn_output.weight`]));
    const m = rmsnorm(x, v[`${b}ffn_norm.weight`]);
    const gate = linear(m, v[`${b}ffn_gate.weight`]);
    const hidden = tf.mul(tf.mul(gate, tf.sigmoid(gate)), linear(m, v[`${b}ffn_up.weight`]));
    x = tf.add(x, linear(hidden, v[`${b}ffn_down.weight`]));
  }
  const logits = linear(rmsnorm(x, v['output_norm.weight']), v['token_embd.weight']);
  const predicted = tf.slice(tf.logSoftmax(logits), [0, 0], [T - 1, c.vocab]);
  const targets = tf.oneHot(tf.tensor1d(tokens.slice(1), 'int32'), c.vocab);
  return tf.neg(tf.mean(tf.sum(tf.mul(predicted, targets), 1)));
}

/** Each tensor's gradient from glassbox (a safetensors file) against TensorFlow.js's, within the tolerances above;
 * returns the worst tensor and its largest difference relative to that tensor's largest gradient. */
async function compareGradients(file, tensors, grads) {
  const ours = readSafetensors(file);
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(tensors).sort(), 'one gradient per model tensor, under its GGUF name');
  let worst = { name: '', error: 0 };
  for (const [name, [, shape]] of Object.entries(tensors)) {
    assert.deepEqual(ours[name].shape, shape, `${name}: shape`);
    const reference = await grads[name].data();
    const g = ours[name].data;
    const largest = Math.max(...reference.map(Math.abs));
    let error = 0, normRef = 0, norm = 0;
    for (let i = 0; i < g.length; i++) {
      error = Math.max(error, Math.abs(g[i] - reference[i]));
      normRef += reference[i] ** 2;
      norm += g[i] ** 2;
    }
    assert.ok(largest > 0, `${name}: the loss depends on it`);
    assert.ok(error <= 1e-4 * largest, `${name}: largest difference ${error} against a largest gradient of ${largest}`);
    assert.ok(Math.abs(Math.sqrt(norm) - Math.sqrt(normRef)) <= 1e-4 * Math.sqrt(normRef), `${name}: norm ${Math.sqrt(norm)} vs ${Math.sqrt(normRef)}`);
    if (error / largest > worst.error) worst = { name, error: error / largest };
  }
  return worst;
}

test('stories260K: glassbox train\'s step-0 gradients are TensorFlow.js\'s autograd of the same loss, tensor by tensor', async (t) => {
  if (!requireFiles(t, cli, model, tokenizer)) return;
  const tf = await tensorflow();

  const data = path.join(dir, 'line.txt');
  fs.writeFileSync(data, `${LINE}\n`);
  const gradients = path.join(dir, 'gradients.safetensors');
  const steps = glassbox(['train', '--model', model, '--tokenizer', tokenizer, '--data', data, '--steps', '1', '--batch', '1', '--save-gradients', gradients, '--output', path.join(dir, 'out.gguf'), '--json'])
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const score = JSON.parse(glassbox(['score', '--model', model, '--tokenizer', tokenizer, '--text', LINE, '--json']));
  const tokens = score.tokens.map((tok) => tok.id);
  assert.equal(steps[0].loss, score.loss, 'train\'s step 0 scores the line as score does');

  const { config, tensors } = readLlama2c(model);
  const variables = Object.fromEntries(Object.entries(tensors).map(([name, [values, shape]]) => [name, tf.variable(tf.tensor(values, shape), true, name)]));
  const { value, grads } = tf.variableGrads(() => lossOf(tf, config, variables, tokens), Object.values(variables));
  const loss = (await value.data())[0];
  assert.ok(Math.abs(loss - score.loss) <= 1e-5 * Math.abs(score.loss), `loss: TensorFlow.js ${loss}, glassbox ${score.loss}`);

  const worst = await compareGradients(gradients, tensors, grads);
  console.log(`autograd: ${Object.keys(tensors).length} tensors of stories260K on ${tokens.length} tokens, loss ${loss.toFixed(7)} (glassbox ${score.loss.toFixed(7)}); largest difference ${worst.error.toExponential(2)} of the tensor's largest gradient (${worst.name})`);
});

/** A GGUF file's metadata and F32 tensors: {meta: {key: value}, tensors: {name: [Float32Array, shape outermost first]}}. */
function readGguf(file) {
  const bytes = fs.readFileSync(file);
  let at = 0;
  const u32 = () => ((at += 4), bytes.readUInt32LE(at - 4));
  const u64 = () => ((at += 8), Number(bytes.readBigUInt64LE(at - 8)));
  const string = () => {
    const n = u64();
    return bytes.subarray(at, (at += n)).toString('utf8');
  };
  const scalar = {
    0: () => bytes.readUInt8(at++), 1: () => bytes.readInt8(at++), 2: () => ((at += 2), bytes.readUInt16LE(at - 2)),
    3: () => ((at += 2), bytes.readInt16LE(at - 2)), 4: u32, 5: () => ((at += 4), bytes.readInt32LE(at - 4)),
    6: () => ((at += 4), bytes.readFloatLE(at - 4)), 7: () => bytes.readUInt8(at++) !== 0, 8: string, 10: u64,
    11: () => ((at += 8), Number(bytes.readBigInt64LE(at - 8))), 12: () => ((at += 8), bytes.readDoubleLE(at - 8)),
  };
  const value = (type) => {
    if (type !== 9) return scalar[type]();
    const itemType = u32();
    return Array.from({ length: u64() }, () => value(itemType));
  };
  assert.equal(bytes.subarray(0, 4).toString('latin1'), 'GGUF');
  at = 4;
  u32(); // version
  const tensorCount = u64(), kvCount = u64();
  const meta = {};
  for (let i = 0; i < kvCount; i++) {
    const key = string();
    meta[key] = value(u32());
  }
  const infos = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = string();
    const dims = Array.from({ length: u32() }, u64);
    const type = u32();
    infos.push({ name, dims, type, offset: u64() });
  }
  const alignment = meta['general.alignment'] ?? 32;
  const base = Math.ceil(at / alignment) * alignment;
  const tensors = {};
  for (const { name, dims, type, offset } of infos) {
    assert.equal(type, 0, `${name}: F32`);
    const n = dims.reduce((a, b) => a * b, 1);
    tensors[name] = [new Float32Array(bytes.buffer.slice(bytes.byteOffset + base + offset, bytes.byteOffset + base + offset + 4 * n)), [...dims].reverse()];
  }
  return { meta, tensors };
}

/** The mean next-token cross-entropy of `tokens` under GPT-2's forward pass, in TensorFlow.js ops. */
function gpt2LossOf(tf, c, v, tokens) {
  const T = tokens.length;
  const layernorm = (x, weight, bias) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, c.eps))), weight), bias);
  };
  const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.pow(x, 3)))))));
  const linear = (x, name) => tf.add(tf.matMul(x, v[`${name}.weight`], false, true), v[`${name}.bias`]);
  const causal = tf.tensor2d(Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -1e9 : 0)), [T, T]);
  const perHead = (x) => tf.transpose(tf.reshape(x, [T, c.heads, c.headDim]), [1, 0, 2]); // [heads, T, hd]

  let x = tf.add(tf.gather(v['token_embd.weight'], tf.tensor1d(tokens, 'int32')), tf.slice(v['position_embd.weight'], [0, 0], [T, c.dim]));
  for (let l = 0; l < c.layers; l++) {
    const b = `blk.${l}.`;
    const n = layernorm(x, v[`${b}attn_norm.weight`], v[`${b}attn_norm.bias`]);
    const [q, k, val] = tf.split(linear(n, `${b}attn_qkv`), 3, 1).map(perHead); // rows q, then k, then v
    const scores = tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(c.headDim)), causal);
    const joined = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), val), [1, 0, 2]), [T, c.dim]);
    x = tf.add(x, linear(joined, `${b}attn_output`));
    const m = layernorm(x, v[`${b}ffn_norm.weight`], v[`${b}ffn_norm.bias`]);
    x = tf.add(x, linear(gelu(linear(m, `${b}ffn_up`)), `${b}ffn_down`));
  }
  const logits = tf.matMul(layernorm(x, v['output_norm.weight'], v['output_norm.bias']), v['token_embd.weight'], false, true);
  const predicted = tf.slice(tf.logSoftmax(logits), [0, 0], [T - 1, c.vocab]);
  const targets = tf.oneHot(tf.tensor1d(tokens.slice(1), 'int32'), c.vocab);
  return tf.neg(tf.mean(tf.sum(tf.mul(predicted, targets), 1)));
}

test('a GPT-2 from a --config: glassbox train\'s step-0 gradients are TensorFlow.js\'s autograd of the same loss, tensor by tensor', async (t) => {
  if (!requireFiles(t, cli, tokenizer)) return;
  const tf = await tensorflow();
  const data = path.join(dir, 'gpt2-line.txt');
  fs.writeFileSync(data, `${LINE}\n`);
  // A few steps from the seeded start, so that biases and norms are no longer 0 and 1; then step 0 of
  // fine-tuning that file is the gradient compared.
  const config = path.join(dir, 'gpt2.json');
  fs.writeFileSync(config, JSON.stringify({ architecture: 'gpt2', dim: 32, layers: 2, heads: 4, kv_heads: 4, hidden_dim: 128, context: 64 }));
  const start = path.join(dir, 'gpt2-start.gguf');
  glassbox(['train', '--config', config, '--tokenizer', tokenizer, '--data', data, '--steps', '5', '--lr', '0.01', '--batch', '1', '--output', start, '--json']);
  const gradients = path.join(dir, 'gpt2-gradients.safetensors');
  const steps = glassbox(['train', '--model', start, '--data', data, '--steps', '1', '--batch', '1', '--save-gradients', gradients, '--output', path.join(dir, 'gpt2-out.gguf'), '--json'])
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const score = JSON.parse(glassbox(['score', '--model', start, '--text', LINE, '--json']));
  const tokens = score.tokens.map((tok) => tok.id);
  assert.equal(steps[0].loss, score.loss, 'train\'s step 0 scores the line as score does');

  const { meta, tensors } = readGguf(start);
  assert.equal(meta['general.architecture'], 'gpt2');
  const [vocab, dim] = tensors['token_embd.weight'][1];
  const heads = meta['gpt2.attention.head_count'];
  const c = { dim, vocab, heads, headDim: dim / heads, layers: meta['gpt2.block_count'], eps: meta['gpt2.attention.layer_norm_epsilon'] };
  tf.disposeVariables(); // the other test's, which share the GGUF names
  const variables = Object.fromEntries(Object.entries(tensors).map(([name, [values, shape]]) => [name, tf.variable(tf.tensor(values, shape), true, name)]));
  const { value, grads } = tf.variableGrads(() => gpt2LossOf(tf, c, variables, tokens), Object.values(variables));
  const loss = (await value.data())[0];
  assert.ok(Math.abs(loss - score.loss) <= 1e-5 * Math.abs(score.loss), `loss: TensorFlow.js ${loss}, glassbox ${score.loss}`);
  const worst = await compareGradients(gradients, tensors, grads);
  console.log(`autograd: ${Object.keys(tensors).length} tensors of a 2-layer GPT-2 on ${tokens.length} tokens, loss ${loss.toFixed(7)} (glassbox ${score.loss.toFixed(7)}); largest difference ${worst.error.toExponential(2)} of the tensor's largest gradient (${worst.name})`);
});
