// JavaAlloc.java: a JVM allocating a known mix, for `prof record --alloc`
// (tests/cli/t0610-alloc.bats, bench/alloc-overhead.sh).
//
//   java -XX:+DTraceAllocProbes -cp build/examples JavaAlloc [SECONDS | -n COUNT [-d MS]]
//
// Each round allocates, and keeps reachable for a while (so that no
// compiler can take the allocations away):
//   6 byte[16] in allocBytes()        60% of the allocations
//   3 java.lang.String in allocStrings()   30% (new String(): no byte[] of its own)
//   1 java.lang.Object[4] in allocOther()  10%
// With SECONDS (default 30) it runs that long, printing "ready" on stderr
// once warmed up, and one second later starts a thread named
// "AsyncAppender-Worker-async-console-appender" (longer than the kernel's
// 15 characters) that allocates the same mix, printing "started" on
// stderr; with -n COUNT it does COUNT allocations in a tight loop and
// prints "allocations/s N" (the benchmark: 10 million), after
// printing "ready PID" and sleeping MS milliseconds with -d.
//
//   java ... JavaAlloc -p PERIOD [SECONDS]
//
// A periodic loop for sampling bias (t0615, bench/alloc-bias.sh): PERIOD - 1
// int[4] then one JavaAlloc$Point, over and over for SECONDS (default 30),
// printing "ready" on stderr once warmed up and, at the end or on SIGTERM,
// "ints N points M" on stderr: its own counts.
//
//   java ... JavaAlloc names [SECONDS]
//
// allocates, per round, classes whose JVM names differ from Java's: one
// int[][] (with its two int[] rows), one java.lang.String[], one
// java.lang.String[][] (with its row), and one instance of a capturing
// lambda's hidden class (JavaAlloc$$Lambda$N/0x...), printing "ready" on
// stderr once warmed up (tests/cli/t0611-alloc-jvm.bats).
public class JavaAlloc {
	static final class Point {
		int x, y;
	}

	static volatile long ints, points;

	static void periodic(int period, double seconds) throws Exception {
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long warm = System.nanoTime() + 300_000_000L;
		boolean ready = false;
		Runtime.getRuntime().addShutdownHook(new Thread(() ->
			System.err.println("ints " + ints + " points " + points)));
		while (System.nanoTime() < end) {
			long ni = 0, np = 0;
			for (int k = 0; k < 1000; k++) {
				for (int i = 0; i < period - 1; i++)
					keep(new int[4]);
				keep(new Point());
				ni += period - 1;
				np++;
			}
			ints += ni;
			points += np;
			if (!ready && System.nanoTime() > warm) {
				System.err.println("ready");
				ready = true;
			}
		}
	}

	static final Object[] sink = new Object[4096];
	static int slot;

	static void keep(Object o) {
		sink[slot] = o;
		slot = (slot + 1) & (sink.length - 1);
	}

	static void allocBytes() {
		for (int i = 0; i < 6; i++)
			keep(new byte[16]);
	}

	static void allocStrings() {
		for (int i = 0; i < 3; i++)
			keep(new String());
	}

	static void allocOther() {
		keep(new Object[4]);
	}

	static void round() {
		allocBytes();
		allocStrings();
		allocOther();
	}

	static void names(double seconds) {
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long warm = System.nanoTime() + 300_000_000L;
		boolean ready = false;
		while (System.nanoTime() < end) {
			for (int i = 0; i < 1000; i++) {
				final int n = i;
				keep(new int[2][3]);
				keep(new String[2]);
				keep(new String[1][1]);
				keep((java.util.function.IntSupplier) () -> n);
			}
			if (!ready && System.nanoTime() > warm) {
				System.err.println("ready");
				ready = true;
			}
			try {
				Thread.sleep(1);
			} catch (InterruptedException e) {
				return;
			}
		}
	}

	public static void main(String[] args) throws Exception {
		if (args.length >= 2 && args[0].equals("-p")) {
			periodic(Integer.parseInt(args[1]), args.length > 2 ? Double.parseDouble(args[2]) : 30);
			return;
		}
		if (args.length >= 1 && args[0].equals("names")) {
			names(args.length > 1 ? Double.parseDouble(args[1]) : 30);
			return;
		}
		if (args.length >= 2 && args[0].equals("-n")) {
			long n = Long.parseLong(args[1]) / 10;
			if (args.length == 4 && args[2].equals("-d")) { // time for a recorder to attach
				System.err.println("ready " + ProcessHandle.current().pid());
				Thread.sleep(Long.parseLong(args[3]));
			}
			long t0 = System.nanoTime();
			for (long i = 0; i < n; i++)
				round();
			double s = (System.nanoTime() - t0) / 1e9;
			System.out.printf("allocations/s %.0f%n", n * 10 / s);
			return;
		}
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 30;
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long warm = System.nanoTime() + 300_000_000L;
		boolean ready = false, started = false;
		while (System.nanoTime() < end) {
			work();
			if (!ready && System.nanoTime() > warm) {
				System.err.println("ready");
				ready = true;
			}
			if (!started && System.nanoTime() > warm + 1_000_000_000L) {
				Thread t = new Thread(() -> {
					try {
						while (System.nanoTime() < end)
							work();
					} catch (InterruptedException e) {
					}
				}, "AsyncAppender-Worker-async-console-appender");
				t.setDaemon(true);
				t.start();
				System.err.println("started");
				started = true;
			}
		}
	}

	static void work() throws InterruptedException {
		for (int i = 0; i < 1000; i++)
			round();
		Thread.sleep(1); // a service, not a benchmark: leave CPU to others
	}
}
