// Held-out case (bench/mapping/heldout13.tsv): how many candidate tasks every
// worker can take alone (the feasibility count a task-assignment or a
// bipartite-matching heuristic starts from, one worker per thread): row i of
// a CSR matrix lists worker i's candidate tasks, each task needs a 64-bit set
// of skills, each worker has one, and the thread counts the tasks whose
// needed set lies inside its own ((need & ~have) == 0). An integer COUNT over
// a row of gathered 64-bit UNSIGNED LONG LONG masks; power-law and "longrows"
// rows. Written for issue 22's thirteenth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SC_BLOCK
#define SC_BLOCK 128
#endif

__global__ void count_coverable_tasks(const int *__restrict__ row, const int *__restrict__ task,
                                      const unsigned long long *__restrict__ need,
                                      const unsigned long long *__restrict__ have, int *__restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long mine = have[i];
  int c = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) c += (need[task[k]] & ~mine) == 0ull ? 1 : 0;
  count[i] = c;
}

static unsigned long long mix64(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "skill_cover: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1311)));
  const size_t nnz = a.col.size();
  // Tasks need about a quarter of the 64 skills (the AND of two random
  // words), workers have about seven eighths (the OR of three): a task is
  // coverable by a worker about one time in seven.
  std::vector<unsigned long long> need(static_cast<size_t>(n)), have(static_cast<size_t>(n));
  for (size_t v = 0; v < size_t(n); ++v) {
    const unsigned long long s = 0x9E3779B97F4A7C15ull * (v + 1311u);
    need[v] = mix64(s + 1) & mix64(s + 2);
    have[v] = mix64(s + 3) | mix64(s + 4) | mix64(s + 5);
  }
  int *drow = loops::to_device(a.rowptr), *dtask = loops::to_device(a.col);
  unsigned long long *dneed = loops::to_device(need), *dhave = loops::to_device(have);
  int *cnt = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * nnz + 16.0 * n, [&] {
    count_coverable_tasks<<<(n + SC_BLOCK - 1) / SC_BLOCK, SC_BLOCK>>>(drow, dtask, dneed, dhave, cnt, n);
  });
  std::vector<int> got = loops::from_device(cnt, size_t(n));
  size_t bad = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    int c = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      c += (need[size_t(a.col[size_t(k)])] & ~have[size_t(i)]) == 0ull;
    total += size_t(c);
    if (got[size_t(i)] != c) ++bad;
  }
  std::printf("skill_cover: %d workers, %zu candidates, %zu coverable%s\n", n, nnz, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
