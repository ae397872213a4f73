// cxx-inline.cpp: a C++ workload whose hot loop is made of inlined code:
// templates, lambdas, forced inlining (always_inline) and a class in a
// namespace, built -O2 -g (see the Makefile). The tests compare
// `prof symbolize -e` with `addr2line -f -i -C` on its addresses, and
// record it to see inlined frames (`_[i]`) under their callers.
//
// usage: cxx-inline [SECONDS]   (default 2; prints "ready" on stderr)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace shapes {

template <typename T> struct accumulator {
	T sum{};
	__attribute__((always_inline)) inline void add(T v)
	{
		sum = sum * 31 + v;
	}
};

class mixer {
public:
	explicit mixer(uint64_t seed) : state_(seed | 1) {}
	// Forced inline into its callers: its code appears in them, with
	// DW_TAG_inlined_subroutine entries naming it.
	__attribute__((always_inline)) inline uint64_t next()
	{
		state_ ^= state_ << 13;
		state_ ^= state_ >> 7;
		state_ ^= state_ << 17;
		return state_;
	}

private:
	uint64_t state_;
};

template <typename T, int N> __attribute__((always_inline)) inline T fold(mixer &m)
{
	accumulator<T> acc;
	for (int i = 0; i < N; i++)
		acc.add(static_cast<T>(m.next()));
	return acc.sum;
}

} // namespace shapes

// Kept out of line, so it is the frame the inlined code shows under.
__attribute__((noinline)) uint64_t hot_loop(uint64_t seed, long rounds)
{
	shapes::mixer m(seed);
	uint64_t total = 0;
	auto step = [&m](int k) __attribute__((always_inline)) {
		return shapes::fold<uint64_t, 8>(m) + static_cast<uint64_t>(k);
	};
	for (long r = 0; r < rounds; r++)
		total += step(static_cast<int>(r & 7));
	return total;
}

template <typename F> __attribute__((noinline)) uint64_t apply_n(F f, int n)
{
	uint64_t acc = 0;
	for (int i = 0; i < n; i++)
		acc += f(i);
	return acc;
}

static uint64_t cold_path(const std::vector<std::string> &words)
{
	std::map<std::string, int> counts;
	for (const auto &w : words)
		counts[w]++;
	uint64_t h = 0;
	for (const auto &kv : counts)
		h = h * 131 + kv.first.size() * static_cast<uint64_t>(kv.second);
	return h;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	std::vector<std::string> words = {"alpha", "beta", "gamma", "beta", "alpha"};
	std::function<uint64_t(int)> fn = [&](int i) { return hot_loop(i + 1, 1000) ^ 1; };
	uint64_t sink = cold_path(words);

	fprintf(stderr, "ready\n");
	auto start = std::chrono::steady_clock::now();
	do {
		sink += apply_n(fn, 100);
	} while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
		 seconds);
	printf("%llu\n", static_cast<unsigned long long>(sink & 0xff));
	return 0;
}
