// la57-check survey: objects, arrays, strings, closures and a hot loop the JIT compiles.
// Runs in the SpiderMonkey shell (print) and in Node.js (console.log).
const say = typeof print === "function" ? print : console.log;
const words = [];
for (let i = 1; i <= 2000; i++)
  words.push("w" + String((i * 7919) % 2003).padStart(5, "0"));
words.sort();
const counts = new Map();
for (const w of words) counts.set(w.slice(0, 3), (counts.get(w.slice(0, 3)) || 0) + 1);
const adder = (n) => (x) => x + n;
const add3 = adder(3);
let sum = 0;
for (let i = 0; i < 200000; i++) sum = add3(sum) % 1000003;
const boxed = words.map((w, i) => ({ w, d: i / 7 }));
say(words[0], words[words.length - 1], counts.size, sum, boxed[1999].d.toFixed(3));
