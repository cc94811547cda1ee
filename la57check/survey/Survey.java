// SPDX-License-Identifier: GPL-2.0
// la57-check survey, OpenJDK (HotSpot). What it exercises, and all the survey table can
// speak for:
//   the Java heap: 200,000 small arrays and strings counted in a HashMap, enough for the
//   young collector to run
//   direct ByteBuffers, which the JVM allocates outside the Java heap
//   the JIT: a hot method C1 and C2 compile (and the interpreter's generated code)
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Survey {
	static int step(int x) {
		return (x * 31 + 7) % 65521;
	}

	public static void main(String[] args) {
		Map<String, Integer> counts = new HashMap<>();
		List<int[]> kept = new ArrayList<>();
		for (int i = 0; i < 200000; i++) {
			counts.merge("k" + (i % 977), 1, Integer::sum);
			int[] record = new int[16];
			record[0] = i;
			if (i % 100 == 0)
				kept.add(record);
		}
		long filled = 0;
		for (int i = 0; i < 64; i++) {
			ByteBuffer b = ByteBuffer.allocateDirect(1 << 16);
			b.put(4096, (byte) i);
			filled += b.get(4096);
		}
		int h = 1;
		for (int i = 0; i < 3000000; i++)
			h = step(h);
		System.out.println(counts.size() + " " + kept.get(1999)[0] + " " + filled + " " + h);
	}
}
