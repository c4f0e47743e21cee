// Held-out case (bench/mapping/heldout19.tsv): every worker's earliest job
// deadline (the earliest-deadline-first pick a batch scheduler makes for
// each worker's local queue, one worker per thread): worker w's njob
// UNSIGNED deadlines (seconds into the day; all ones for an empty slot) are
// stored together (row-major, w x njob + j), and the thread keeps an
// UNSIGNED MIN, from all ones, of them over a PARAMETER-TRIP loop
// (j < njob); 40 jobs. An UNSIGNED MIN of a row-major unsigned. Written for
// issue 22's nineteenth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef ED_BLOCK
#define ED_BLOCK 128
#endif

__global__ void earliest_job_deadline(const unsigned *__restrict__ due, unsigned *__restrict__ next, int nworker,
                                      int njob) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= nworker) return;
  unsigned m = 0xFFFFFFFFu;
  for (int j = 0; j < njob; ++j) m = min(m, due[size_t(w) * njob + j]);
  next[w] = m;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nworker = int(args.get("workers", 1 << 20)), njob = int(args.get("jobs", 40));
  if (nworker < 1 || njob < 1) {
    std::fprintf(stderr, "earliest_deadline: --workers and --jobs must be at least 1\n");
    return 2;
  }
  // Deadlines from xorshift64*, two a draw: 0 to 86399 s, and an empty slot
  // (all ones) when the draw's low 3 bits are 0.
  const size_t ns = size_t(nworker) * size_t(njob);
  std::vector<unsigned> due(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1981u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    due[k] = (h & 7u) ? unsigned(h >> 8) % 86400u : 0xFFFFFFFFu;
    due[k + 1] = unsigned(h >> 37) % 86400u;
  }
  unsigned *ddue = loops::to_device(due);
  unsigned *dnext = loops::device_zeros<unsigned>(size_t(nworker));
  loops::timed(args, 4.0 * double(ns) + 4.0 * nworker, [&] {
    earliest_job_deadline<<<(nworker + ED_BLOCK - 1) / ED_BLOCK, ED_BLOCK>>>(ddue, dnext, nworker, njob);
  });
  std::vector<unsigned> got = loops::from_device(dnext, size_t(nworker));
  // Integer minima: exact; the serial reference checks every 4th worker.
  size_t bad = 0;
  double mean = 0.0;
  for (int w = 0; w < nworker; w += 4) {
    unsigned m = 0xFFFFFFFFu;
    for (int j = 0; j < njob; ++j) m = std::min(m, due[size_t(w) * size_t(njob) + size_t(j)]);
    mean += m;
    if (got[size_t(w)] != m) ++bad;
  }
  std::printf("earliest_deadline: %d workers of %d jobs, mean earliest %.1f s in the checked%s\n", nworker, njob,
              mean / double((nworker + 3) / 4), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
