/*
 * Renames.java: threads whose names change while a profiler watches, for
 * prof's JVM thread names (tests/cli/t0635-jvm-attach.bats,
 * docs/prof-jvm.md "Full thread names").
 *
 *   usage: java -cp build/examples/java Renames [SECONDS] [RENAME_AFTER]
 *          (defaults 60 and 1; fractions allowed)
 *
 * Threads (each burns about 20% of a CPU: 2 ms of every 10 ms):
 *   main                the Java main thread (the kernel calls it "java",
 *                       the launcher's name: HotSpot does not rename it)
 *   worker-before       renamed by main, RENAME_AFTER seconds after
 *                       "ready", to worker-renamed-by-main: Thread.setName
 *                       from another thread does not reach the kernel
 *   self-before         renames itself at the same time to
 *                       self-renamed-itself-later (the kernel sees that one)
 * Prints "ready PID" on stderr once all are named, "renamed" once both
 * renames are done, and exits SECONDS after "ready". Nothing on stdout.
 */
public class Renames {
	static volatile long sink;
	static volatile boolean renameSelf;

	static void burn(long until) throws InterruptedException {
		while (System.nanoTime() < until) {
			long end = System.nanoTime() + 2_000_000L;
			while (System.nanoTime() < end)
				sink++;
			Thread.sleep(8);
		}
	}

	public static void main(String[] args) throws Exception {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 60;
		double after = args.length > 1 ? Double.parseDouble(args[1]) : 1;
		long start = System.nanoTime();
		long until = start + (long)(seconds * 1e9);
		long renameAt = start + (long)(after * 1e9);
		Thread worker = new Thread(() -> {
			try {
				burn(until);
			} catch (InterruptedException e) {
				/* exit */
			}
		}, "worker-before");
		Thread self = new Thread(() -> {
			try {
				while (!renameSelf)
					burn(System.nanoTime() + 10_000_000L);
				Thread.currentThread().setName("self-renamed-itself-later");
				burn(until);
			} catch (InterruptedException e) {
				/* exit */
			}
		}, "self-before");
		worker.start();
		self.start();
		Thread.sleep(50); /* the threads name their kernel threads as they start */
		System.err.println("ready " + ProcessHandle.current().pid());
		burn(renameAt);
		worker.setName("worker-renamed-by-main");
		renameSelf = true;
		while (!self.getName().equals("self-renamed-itself-later"))
			Thread.sleep(1);
		System.err.println("renamed");
		burn(until);
		worker.join();
		self.join();
	}
}
