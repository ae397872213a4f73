/*
 * Inline.java: a JVM workload whose hot method has a small method that C2
 * inlines into it, for the inlined-frame tests (t0646) and
 * bench/jvm-inline.sh.
 *
 *   usage: java -cp build/examples/java Inline [SECONDS]   (default 30)
 *
 * Thread "inliner" calls Inline.outer() in a loop for SECONDS; outer()
 * does almost nothing itself but call Inline.inner() on each of its
 * array's rows, and inner(), a short loop of 30-odd bytecodes, is where
 * the time goes. C2 inlines inner() into outer() (-XX:+PrintInlining:
 * "Inline::inner (36 bytes)   inline (hot)"), so the compiled outer()
 * has no frame of inner() at all: a profiler names it from outer()'s
 * debug information or not at all. Prints "ready PID" on stderr once the
 * thread runs, and "rounds N" on stdout at the end.
 */
public class Inline {
	static volatile long sink;

	/* The inlined one: a row's weighted sum. */
	static long inner(long[] row, long seed) {
		long h = seed;
		for (int i = 0; i < row.length; i++)
			h = h * 31 + (row[i] ^ (h >>> 7));
		return h;
	}

	/* The caller: every row through inner(), nothing else of note. */
	static long outer(long[][] rows, long seed) {
		long s = seed;
		for (int r = 0; r < rows.length; r++)
			s += inner(rows[r], s);
		return s;
	}

	public static void main(String[] args) throws Exception {
		final long seconds = args.length > 0 ? Long.parseLong(args[0]) : 30;
		final long[][] rows = new long[64][512];
		for (int r = 0; r < rows.length; r++)
			for (int i = 0; i < rows[r].length; i++)
				rows[r][i] = r * 7919L + i;
		final long[] rounds = new long[1];
		Thread t = new Thread(() -> {
			long end = System.nanoTime() + seconds * 1_000_000_000L, s = 1;
			while (System.nanoTime() < end) {
				s = outer(rows, s);
				rounds[0]++;
			}
			sink = s;
		}, "inliner");
		t.start();
		System.err.println("ready " + ProcessHandle.current().pid());
		t.join();
		System.out.println("rounds " + rounds[0]);
	}
}
