// SPDX-License-Identifier: GPL-2.0
// la57-check survey, Node.js (V8). What it exercises, and all the survey table can
// speak for:
//   V8's heap: 100,000 small objects with arrays and strings (scavenges and a mark-compact)
//   ArrayBuffer backing stores, which V8 allocates outside its heap (Buffer.alloc)
//   the JIT: a hot function TurboFan optimizes, and a WebAssembly module V8 compiles
'use strict';
const objects = [];
for (let i = 0; i < 100000; i++) objects.push({ i, key: 'k' + (i % 977), pair: [i, 2 * i] });
let sum = 0;
for (const o of objects) sum = (sum + o.pair[1] + o.key.length) % 1000003;
const buffers = [];
for (let i = 0; i < 64; i++) buffers.push(Buffer.alloc(1 << 16, i));
const filled = buffers.reduce((t, b) => t + b[4096], 0);
const step = (x) => (x * 31 + 7) % 65521;
let h = 1;
for (let i = 0; i < 1000000; i++) h = step(h);
// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const wasm = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f,
  0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01, 0x03, 0x61, 0x64, 0x64, 0x00, 0x00,
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b])));
let w = 0;
for (let i = 0; i < 100000; i++) w = wasm.exports.add(w, i) % 1000003;
console.log(sum, filled, h, w);
