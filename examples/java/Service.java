/*
 * Service.java: a service-like JVM workload for prof's JVM support (the
 * demo and tests/cli/t0620-jvm.bats): named thread pools, each doing known
 * shares of CPU work in its own methods, and a known allocation mix.
 *
 *   usage: java -cp build/examples/java Service [SECONDS] [HANDLERS]
 *          (defaults 10 and 3; fractions of seconds allowed)
 *
 * Threads and what a CPU profile of this program must show:
 *   http-handler-1..N   30% of a CPU each: Handler.handleRequest ->
 *                       Handler.parseRequest (byte scanning) and
 *                       Handler.lookupRoute (java.util.HashMap.get,
 *                       java.lang.String.hashCode)
 *   AsyncAppender-Worker-async-console-appender
 *                       10%: AsyncLogger.formatLine (StringBuilder)
 *   metrics-reporter-1  10%: MetricsReporter.computePercentiles
 *                       (java.util.Arrays.sort)
 *   idle "quoted" wörker ✓   sleeps (a hostile name for Thread.print parsers)
 *   main                waits
 * So with 3 handlers the samples split 3:3:3:1:1 between the handlers, the
 * logger and the reporter. The shares hold by construction: every busy
 * thread runs a 10 ms duty cycle, burns its share of each slice in its own
 * CPU time (ThreadMXBean) and sleeps the rest; together they want 1.1 CPUs.
 *
 * Allocation mix (for allocation profiles): each request a handler serves
 * allocates 3 byte[256] (Handler.parseRequest) and 1 String
 * (Handler.lookupRoute); each log line the logger formats allocates one
 * StringBuilder and one String; the reporter allocates one long[512] per
 * round.
 *
 * Once every thread has started and named itself, prints "ready PID" on
 * stderr, so a test can attach after that line; runs SECONDS more and exits
 * 0. Nothing is printed on stdout.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

public class Service {
	static final long SLICE_NS = 10_000_000L;
	static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
	static volatile long sink;

	/* Runs `work` until this thread used `share` of each 10 ms slice, then
	 * sleeps to the end of the slice, until `until` (System.nanoTime). */
	static void dutyCycle(long until, double share, Runnable work) throws InterruptedException {
		long busy = (long)(SLICE_NS * share);

		for (long slice = System.nanoTime(); slice < until; slice += SLICE_NS) {
			long cpu0 = MX.getCurrentThreadCpuTime();

			while (MX.getCurrentThreadCpuTime() - cpu0 < busy)
				for (int i = 0; i < 20; i++)
					work.run();
			long now = System.nanoTime();
			if (now - slice > 100 * SLICE_NS)
				slice = now; /* fell 1 s behind (stopped, starved): resync */
			long left = slice + SLICE_NS - now;
			if (left > 0)
				Thread.sleep(left / 1_000_000, (int)(left % 1_000_000));
		}
	}

	static final class Handler {
		static final String[] PATHS = {"/api/users", "/api/orders", "/health", "/api/items"};
		final HashMap<String, Integer> routes = new HashMap<>();
		int n;

		Handler() {
			for (int i = 0; i < PATHS.length; i++)
				routes.put(PATHS[i], i);
		}

		void handleRequest() {
			int len = parseRequest(n++);
			sink += lookupRoute(len);
		}

		/* 3 byte[256] per request. */
		int parseRequest(int seed) {
			int spaces = 0;

			for (int k = 0; k < 3; k++) {
				byte[] buf = new byte[256];
				for (int i = 0; i < buf.length; i++)
					buf[i] = (byte)((seed * 31 + i * 7 + k) & 0x7f);
				for (int i = 0; i < buf.length; i++)
					if (buf[i] == ' ' || buf[i] == '\n')
						spaces++;
			}
			return spaces;
		}

		/* 1 String per request. */
		int lookupRoute(int len) {
			String path = new String(PATHS[len & 3].toCharArray());
			Integer r = routes.get(path);
			return r == null ? 0 : r + path.hashCode();
		}
	}

	static final class AsyncLogger {
		final ArrayBlockingQueue<String> queue = new ArrayBlockingQueue<>(1024);
		int line;

		/* One StringBuilder and one String per line. */
		String formatLine(int i) {
			StringBuilder sb = new StringBuilder(96);
			sb.append("2024-01-01T00:00:00.").append(i % 1000).append(" INFO [http-handler] ");
			for (int k = 0; k < 4; k++)
				sb.append("request=").append(i + k).append(' ');
			return sb.toString();
		}

		void logOne() {
			sink += formatLine(line++).length();
		}
	}

	static final class MetricsReporter {
		final java.util.Random rnd = new java.util.Random(42);

		/* One long[512] per round. */
		long computePercentiles() {
			long[] samples = new long[512];
			for (int i = 0; i < samples.length; i++)
				samples[i] = rnd.nextInt(100000);
			Arrays.sort(samples);
			return samples[samples.length / 2] + samples[samples.length * 99 / 100];
		}

		void report() {
			sink += computePercentiles();
		}
	}

	/* Pools name their threads as executors do: "<pool>-<n>". */
	static ThreadFactory named(String pool) {
		AtomicInteger n = new AtomicInteger();
		return r -> new Thread(r, pool + "-" + n.incrementAndGet());
	}

	public static void main(String[] args) throws Exception {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
		int handlers = args.length > 1 ? Integer.parseInt(args[1]) : 3;
		CountDownLatch started = new CountDownLatch(handlers + 3);
		long[] until = new long[1];
		CountDownLatch go = new CountDownLatch(1);
		ThreadFactory handlerPool = named("http-handler");
		Thread[] threads = new Thread[handlers + 3];

		for (int i = 0; i < handlers; i++) {
			Handler h = new Handler();
			threads[i] = handlerPool.newThread(() -> run(started, go, until, 0.30, h::handleRequest));
		}
		AsyncLogger logger = new AsyncLogger();
		threads[handlers] = new Thread(() -> run(started, go, until, 0.10, logger::logOne),
					       "AsyncAppender-Worker-async-console-appender");
		MetricsReporter metrics = new MetricsReporter();
		threads[handlers + 1] = named("metrics-reporter").newThread(
			() -> run(started, go, until, 0.10, metrics::report));
		threads[handlers + 2] = new Thread(() -> {
			started.countDown();
			try {
				go.await();
				Thread.sleep((long)(seconds * 1000) + 100);
			} catch (InterruptedException e) {
				/* exit */
			}
		}, "idle \"quoted\" w\u00f6rker \u2713");
		for (Thread t : threads)
			t.start();
		started.await();
		/* Java threads name their kernel threads as they start: wait a
		 * little so that every name is in place before "ready". */
		Thread.sleep(50);
		until[0] = System.nanoTime() + (long)(seconds * 1e9);
		go.countDown();
		System.err.println("ready " + ProcessHandle.current().pid());
		for (Thread t : threads)
			t.join();
	}

	static void run(CountDownLatch started, CountDownLatch go, long[] until, double share,
			Runnable work) {
		started.countDown();
		try {
			go.await();
			dutyCycle(until[0], share, work);
		} catch (InterruptedException e) {
			/* exit */
		}
	}
}
