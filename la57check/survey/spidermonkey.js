// SPDX-License-Identifier: GPL-2.0
// la57-check survey, SpiderMonkey shell (js102). What it exercises, and all the survey
// table can speak for:
//   the GC heap: strings sorted and counted in a Map, closures, 2,000 boxed records
//   typed arrays, whose large buffers SpiderMonkey allocates outside the GC heap
//   the JIT: a hot closure the baseline compiler and Ion compile, and a WebAssembly
//   module (the same one node.js uses)
const words = [];
for (let i = 1; i <= 2000; i++)
  words.push("w" + String((i * 7919) % 2003).padStart(5, "0"));
words.sort();
const counts = new Map();
for (const w of words) counts.set(w.slice(0, 3), (counts.get(w.slice(0, 3)) || 0) + 1);
const boxed = words.map((w, i) => ({ w, d: i / 7 }));
const floats = new Float64Array(1 << 18);
for (let i = 0; i < floats.length; i++) floats[i] = i / 3;
const adder = (n) => (x) => x + n;
const add3 = adder(3);
let sum = 0;
for (let i = 0; i < 200000; i++) sum = add3(sum) % 1000003;
const wasm = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f,
  0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01, 0x03, 0x61, 0x64, 0x64, 0x00, 0x00,
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b])));
print(words[0], words[words.length - 1], counts.size, sum, boxed[1999].d.toFixed(3),
  floats[12345].toFixed(2), wasm.exports.add(40, 2));
