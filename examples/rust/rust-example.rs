// rust-example.rs: a CPU-bound Rust workload for prof's Rust support:
// generic functions, closures, a trait object, #[inline(always)] and
// #[inline(never)] functions, and a thread with a name ("rs-worker").
// Built twice by the Makefile (when /usr/bin/rustc exists) with -g,
// frame pointers and opt-level 2: legacy symbol mangling (rustc's
// default) and v0 (-C symbol-mangling-version=v0). tests/cli/t0550
// records it and compares `prof symbolize` with addr2line -C.
//
// usage: rust-example [SECONDS]   (default 2; prints "ready" on stderr)
use std::env;
use std::thread;
use std::time::{Duration, Instant};

// Hides a value from the optimizer (std::hint::black_box is unstable in
// rustc 1.63, Debian 12's).
fn black_box<T: Copy>(x: T) -> T {
    // SAFETY: reads a valid, initialized local.
    unsafe { std::ptr::read_volatile(&x) }
}

trait Shape {
    fn area(&self, k: u64) -> u64;
}

struct Square(u64);
struct Circle(u64);

impl Shape for Square {
    #[inline(never)]
    fn area(&self, k: u64) -> u64 {
        mix(self.0.wrapping_mul(k) ^ 0x9e37)
    }
}

impl Shape for Circle {
    #[inline(never)]
    fn area(&self, k: u64) -> u64 {
        mix(self.0.wrapping_add(k).rotate_left(7))
    }
}

// Inlined into every caller: its code shows as an inlined frame.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

// A generic function, kept out of line: one copy per type.
#[inline(never)]
fn fold_all<T: Copy + Into<u64>>(items: &[T], f: impl Fn(u64) -> u64) -> u64 {
    let mut acc = 0u64;
    for &it in items {
        acc = acc.wrapping_mul(31).wrapping_add(f(it.into()));
    }
    acc
}

// The main thread's hot loop: a closure over a trait object.
#[inline(never)]
fn hot_loop(shapes: &[Box<dyn Shape>], rounds: u64) -> u64 {
    let mut total = 0u64;
    let step = |k: u64| -> u64 { shapes.iter().map(|s| s.area(k)).fold(0, u64::wrapping_add) };
    for r in 0..rounds {
        total = total.wrapping_add(step(r));
    }
    total
}

// The worker thread's loop: generic folds with closures.
#[inline(never)]
fn worker_loop(deadline: Instant) -> u64 {
    let small: Vec<u32> = (0..256).collect();
    let bytes: Vec<u8> = (0..=255).collect();
    let mut sink = 0u64;
    while Instant::now() < deadline {
        sink ^= fold_all(black_box(&small), |x| mix(x + 1));
        sink ^= fold_all(black_box(&bytes), |x| mix(x.wrapping_mul(3)));
    }
    sink
}

fn main() {
    let seconds: f64 = env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(3)), Box::new(Circle(5))];
    let worker = thread::Builder::new()
        .name("rs-worker".into())
        .spawn(move || worker_loop(deadline))
        .expect("cannot start the worker thread");

    eprintln!("ready");
    let mut sink = 0u64;
    while Instant::now() < deadline {
        sink = sink.wrapping_add(hot_loop(black_box(&shapes), 2000));
    }
    sink ^= worker.join().unwrap_or(0);
    println!("{}", sink & 0xff);
}
