-- SPDX-License-Identifier: GPL-2.0
-- la57-check survey, LuaJIT. What it exercises, and all the survey table can speak for:
--   LuaJIT's GC arena: 2,000 strings sorted and counted in tables, closures
--   the JIT: hot loops it records and compiles to machine code (jit.status() says the
--   compiler is on)
local words = {}
for i = 1, 2000 do
  words[i] = string.format("w%05d", (i * 7919) % 2003)
end
table.sort(words)
local counts = {}
for _, w in ipairs(words) do
  local k = w:sub(1, 3)
  counts[k] = (counts[k] or 0) + 1
end
local function adder(n) return function(x) return x + n end end
local add3, sum = adder(3), 0
for i = 1, 200000 do sum = add3(sum) % 1000003 end
local keys = 0
for _ in pairs(counts) do keys = keys + 1 end
print(words[1], words[#words], keys, sum, "jit", (jit.status()))
