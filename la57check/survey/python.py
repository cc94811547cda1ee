# SPDX-License-Identifier: GPL-2.0
# la57-check survey, Python (CPython 3.11). What it exercises, and all the survey table
# can speak for:
#   pymalloc's arenas: lists, dicts, strings, closures, floats and big integers
#   a 16 MiB bytearray, which comes from malloc (its own mmap), not pymalloc
# CPython has no JIT.
words = sorted("w%05d" % ((i * 7919) % 2003) for i in range(1, 2001))
counts = {}
for w in words:
    counts[w[:3]] = counts.get(w[:3], 0) + 1


def adder(n):
    return lambda x: x + n


add3, total = adder(3), 0
for _ in range(200000):
    total = add3(total) % 1000003
block = bytearray(16 << 20)
block[-1] = 7
print(words[0], words[-1], len(counts), total, 3 ** 200 % 1000003, round(1999 / 7, 3),
      sum(block))
