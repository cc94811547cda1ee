-- SPDX-License-Identifier: GPL-2.0
-- la57-check survey, LuaJIT's mremap growth (LuaJIT/LuaJIT#671). What it exercises:
--   one table's array part grown to 4 Mi slots (32 MiB and more): LuaJIT's allocator
--   keeps blocks that large in mmaps of their own and grows them with mremap(), which
--   may move them; #671 is LuaJIT asserting on a moved block outside its 47-bit range
local t = {}
for i = 1, 4 * 1024 * 1024 do t[i] = i end
local sum = 0
for i = 1, #t, 4096 do sum = sum + t[i] end
print(#t, sum)
