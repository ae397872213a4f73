/*
 * Spin.java: a CPU-bound JVM workload with a fixed amount of work, for
 * bench/jvm-overhead.sh (how much a profiler slows a JVM down).
 *
 *   usage: java -cp build/examples/java Spin [THREADS] [WORK] [DELAY_MS]
 *          (defaults 2, 20000, 0)
 *
 * Prints "ready PID" on stderr, sleeps DELAY_MS (a recorder can attach
 * meanwhile), then each of THREADS threads runs WORK rounds of hashing and
 * sorting through a few levels of calls (so stacks have Java frames to
 * walk); prints "elapsed SECONDS" of that work on stdout and exits 0.
 */
import java.util.Arrays;

public class Spin {
	static volatile long sink;

	static long mix(long x) {
		x ^= x << 13;
		x ^= x >>> 7;
		x ^= x << 17;
		return x;
	}

	static long hashRound(long seed) {
		long h = seed;
		for (int i = 0; i < 20_000; i++)
			h = mix(h + i);
		return h;
	}

	static long sortRound(long seed) {
		long[] a = new long[2048];
		for (int i = 0; i < a.length; i++) {
			seed = mix(seed + i);
			a[i] = seed;
		}
		Arrays.sort(a);
		return a[a.length / 2];
	}

	static long work(int rounds, long seed) {
		long s = seed;
		for (int r = 0; r < rounds; r++)
			s += hashRound(s) + sortRound(s);
		return s;
	}

	public static void main(String[] args) throws Exception {
		int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
		int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
		long delay = args.length > 2 ? Long.parseLong(args[2]) : 0;
		Thread[] t = new Thread[threads];

		System.err.println("ready " + ProcessHandle.current().pid());
		Thread.sleep(delay);
		long t0 = System.nanoTime();
		for (int i = 0; i < threads; i++) {
			final long seed = i + 1;
			t[i] = new Thread(() -> sink += work(rounds, seed), "spin-" + (i + 1));
			t[i].start();
		}
		for (Thread x : t)
			x.join();
		System.out.printf("elapsed %.3f%n", (System.nanoTime() - t0) / 1e9);
	}
}
