/*
 * Moves.java: JIT code that moves while it is profiled, for the test of JIT
 * maps asked for during a recording (tests/cli/t0640-jit-moves.bats).
 *
 *   usage: java -cp build/examples/java Moves [PHASES] [PHASE_MS] [DELAY_MS]
 *          (defaults 6, 1500, 0)
 *
 * Prints "ready PID" on stderr and sleeps DELAY_MS. Then, PHASES times, a
 * fresh class loader defines Moves$Kernel anew and spins in its methods for
 * PHASE_MS (the JIT compiles them, at new addresses); the loader is then
 * dropped and System.gc() unloads the class, so its compiled code is freed
 * and its addresses reused by the next phase: a JIT map read only at the
 * end names none of the earlier phases' code. Each phase prints "phase N
 * CALLS" on stdout (the calls of Kernel.step it made) and the whole run
 * "unloaded N" (classes the JVM unloaded). Exits 0.
 */
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

public class Moves {
	/* Loaded afresh by each phase's loader: never by the application's. */
	public static class Kernel {
		static long sink;

		static long step(long h, int i) {
			h ^= h << 13;
			h ^= h >>> 7;
			h ^= h << 17;
			return h + i;
		}

		public static long spin(long ms) {
			long end = System.nanoTime() + ms * 1_000_000L, calls = 0, h = 1;

			while (System.nanoTime() < end) {
				for (int i = 0; i < 10_000; i++)
					h = step(h, i);
				calls += 10_000;
			}
			sink = h;
			return calls;
		}
	}

	/* Defines Moves$Kernel from its class file itself, delegating the rest. */
	static final class PhaseLoader extends ClassLoader {
		private final byte[] code;

		PhaseLoader(byte[] code) {
			super(Moves.class.getClassLoader());
			this.code = code;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.equals("Moves$Kernel"))
				return super.loadClass(name, resolve);
			synchronized (getClassLoadingLock(name)) {
				Class<?> c = findLoadedClass(name);
				if (c == null)
					c = defineClass(name, code, 0, code.length);
				return c;
			}
		}
	}

	static byte[] kernelBytes() throws Exception {
		try (InputStream in = Moves.class.getResourceAsStream("Moves$Kernel.class")) {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			in.transferTo(out);
			return out.toByteArray();
		}
	}

	public static void main(String[] args) throws Exception {
		int phases = args.length > 0 ? Integer.parseInt(args[0]) : 6;
		long phaseMs = args.length > 1 ? Long.parseLong(args[1]) : 1500;
		long delayMs = args.length > 2 ? Long.parseLong(args[2]) : 0;
		byte[] code = kernelBytes();

		System.err.println("ready " + ProcessHandle.current().pid());
		Thread.sleep(delayMs);
		for (int p = 0; p < phases; p++) {
			Method spin = new PhaseLoader(code).loadClass("Moves$Kernel")
					.getMethod("spin", long.class);
			long calls = (Long) spin.invoke(null, phaseMs);

			spin = null;
			System.out.println("phase " + p + " " + calls);
			System.gc(); /* the loader is garbage: its class and code go */
		}
		System.out.println("unloaded " +
			ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount());
	}
}
