#!/usr/bin/env node
// Runs an encoder exported by bench/onnx_export.py on ONNX Runtime (onnxruntime-node, its CPU
// execution provider: MLAS kernels, every graph optimization on), for timing invar's encoder against
// it (bench/embed_vs_onnxruntime.sh). Prints JSON as bench/torch_encoder.py does: the embedding of
// each input (all inputs the same length, no padding) and wall and process CPU seconds of each timed
// run, after one untimed warm-up (session creation excluded). Bench only: CI never runs it.
//
//   npm install --prefix /tmp/ort onnxruntime-node@1.30.0
//   NODE_PATH=/tmp/ort/node_modules node bench/ort_encoder.js --model /tmp/xlmr-base.onnx \
//       --inputs inputs.json --threads 2 --repeat 3
'use strict';
const fs = require('fs');
const { parseArgs } = require('util');
const ort = require('onnxruntime-node');

function cpuSeconds() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

async function main() {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      inputs: { type: 'string' },
      threads: { type: 'string', default: '2' },
      repeat: { type: 'string', default: '1' },
      'no-vectors': { type: 'boolean', default: false },
    },
  });
  if (!values.model || !values.inputs) throw new Error('give --model FILE.onnx and --inputs FILE.json');
  const threads = Number(values.threads);
  const session = await ort.InferenceSession.create(values.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  const rows = JSON.parse(fs.readFileSync(values.inputs, 'utf8'));
  const batch = rows.length;
  const tokens = rows[0].length;
  if (!rows.every((row) => row.length === tokens)) throw new Error(`${values.inputs}: inputs of different lengths`);
  const ids = new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [batch, tokens]);
  const mask = new ort.Tensor('int64', new BigInt64Array(batch * tokens).fill(1n), [batch, tokens]);
  const feeds = { input_ids: ids, attention_mask: mask };
  let output = await session.run(feeds);  // warm-up
  const runs = [];
  for (let i = 0; i < Number(values.repeat); i++) {
    const cpu = cpuSeconds();
    const wall = process.hrtime.bigint();
    output = await session.run(feeds);
    runs.push({ wall_s: Number(process.hrtime.bigint() - wall) / 1e9, cpu_s: cpuSeconds() - cpu });
  }
  const result = { runs, onnxruntime: ort.env.versions.common, threads };
  if (!values['no-vectors']) {
    const vectors = output.sentence_embedding;
    const hidden = vectors.dims[1];
    result.embeddings = Array.from({ length: batch }, (_, b) => Array.from(vectors.data.subarray(b * hidden, (b + 1) * hidden)));
  }
  console.log(JSON.stringify(result));
}

main().catch((error) => {
  console.error(`ort_encoder.js: ${error.message}`);
  process.exit(1);
});
