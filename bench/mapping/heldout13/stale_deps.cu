// Held-out case (bench/mapping/heldout13.tsv): which targets of a build graph
// are out of date (the check make, ninja or bazel runs before scheduling,
// one target per thread): row i of a CSR matrix lists target i's inputs, and
// the thread ORs together whether any input's 64-bit modification time (in
// nanoseconds) is later than the target's last build time. A LOGICAL OR,
// written with the bitwise |= of an int flag, over a row of gathered 64-bit
// LONG LONG timestamps; power-law and "longrows" rows. Written for issue 22's
// thirteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef SD_BLOCK
#define SD_BLOCK 128
#endif

__global__ void needs_rebuild(const int *__restrict__ row, const int *__restrict__ input,
                              const long long *__restrict__ mtime, const long long *__restrict__ built,
                              int *__restrict__ stale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long at = built[i];
  int out = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) out |= mtime[input[k]] > at;
  stale[i] = out;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "stale_deps: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1331)));
  const size_t nnz = a.col.size();
  // Modification times spread over a day after a fixed epoch; build times
  // in the day's last 3%: an input is newer than its target about one time
  // in seventy, so most short rows are up to date and most long ones stale.
  const long long epoch = 1700000000000000000ll, day = 86400000000000ll;
  std::vector<long long> mtime(static_cast<size_t>(n)), built(static_cast<size_t>(n));
  for (size_t v = 0; v < size_t(n); ++v) {
    unsigned long long z = 0x9E3779B97F4A7C15ull * (v + 1332u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    mtime[v] = epoch + (long long)((z >> 20) % (unsigned long long)day);
    built[v] = epoch + day - (long long)((z & 0xFFFFFu) * (unsigned long long)(day / 100 * 3) / 0x100000u);
  }
  int *drow = loops::to_device(a.rowptr), *dinput = loops::to_device(a.col);
  long long *dmtime = loops::to_device(mtime), *dbuilt = loops::to_device(built);
  int *stale = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * nnz + 16.0 * n, [&] {
    needs_rebuild<<<(n + SD_BLOCK - 1) / SD_BLOCK, SD_BLOCK>>>(drow, dinput, dmtime, dbuilt, stale, n);
  });
  std::vector<int> got = loops::from_device(stale, size_t(n));
  size_t bad = 0, nstale = 0;
  for (int i = 0; i < n; ++i) {
    int out = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      out |= mtime[size_t(a.col[size_t(k)])] > built[size_t(i)];
    nstale += size_t(out);
    if (got[size_t(i)] != out) ++bad;
  }
  std::printf("stale_deps: %d targets, %zu inputs, %zu stale%s\n", n, nnz, nstale,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
