// Held-out case (bench/mapping/heldout9.tsv): the degree-decrement step of a
// k-core peeling round in its pull form (as direction-optimising GPU k-core
// and degeneracy-ordering codes run it when many vertices peel at once):
// every vertex still in the graph walks its adjacency row and counts the
// neighbours peeled in this round (byte flags), which the next round
// subtracts from its degree. One thread per vertex, leaving at once when its
// vertex is no longer alive (about one in three is peeled now and one in
// eight left earlier, drawn by a hash): an integer count with a gather of a
// byte flag per entry over a CSR row; power-law and regular rows. Written
// for issue 22's ninth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it. (It replaces, on the same inputs, the
// push form of the same step, whose peeled vertices scattered atomicAdds on
// their live neighbours' counters, first with a while loop and then with a
// for loop, for which no timed rewrite was offered.)
#include "loops_harness.cuh"

#ifndef PEEL_BLOCK
#define PEEL_BLOCK 256
#endif

__global__ void count_peeled_neighbours(int n, const int *__restrict__ adj_start, const int *__restrict__ adj,
                                        const unsigned char *__restrict__ peeled,
                                        const unsigned char *__restrict__ alive, int *lost) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !alive[v]) return;
  int c = 0;
  for (int e = adj_start[v]; e < adj_start[v + 1]; ++e) c += peeled[adj[e]];
  lost[v] = c;
}

static unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "peel_count: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 931)));
  // One vertex in eight left the graph in earlier rounds; of the rest about
  // one in three is peeled now (and is no longer alive).
  std::vector<unsigned char> peeled(static_cast<size_t>(n)), alive(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    const unsigned h = mix32(unsigned(v) * 0x9E3779B9u + 932u);
    const bool gone = (h & 7u) == 0;
    peeled[size_t(v)] = !gone && (h >> 8) % 3u == 0;
    alive[size_t(v)] = !gone && !peeled[size_t(v)];
  }
  int *dstart = loops::to_device(a.rowptr), *dadj = loops::to_device(a.col);
  unsigned char *dpeeled = loops::to_device(peeled), *dalive = loops::to_device(alive);
  int *lost = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 5.0 * a.col.size() + 6.0 * n, [&] {
    count_peeled_neighbours<<<(n + PEEL_BLOCK - 1) / PEEL_BLOCK, PEEL_BLOCK>>>(n, dstart, dadj, dpeeled, dalive, lost);
  });
  std::vector<int> got = loops::from_device(lost, size_t(n)), want(static_cast<size_t>(n), 0);
  for (int v = 0; v < n; ++v) {
    if (!alive[size_t(v)]) continue;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) want[size_t(v)] += peeled[size_t(a.col[size_t(e)])];
  }
  const bool bad = got != want;
  std::printf("peel_count: %d vertices, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
