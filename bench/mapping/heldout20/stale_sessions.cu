// Held-out case (bench/mapping/heldout20.tsv): how many of every gateway's
// open sessions have outlived their application's idle timeout (the sweep a
// load balancer's or an API gateway's session table runs before evicting,
// one gateway per thread): row i of a CSR matrix lists gateway i's open
// sessions, a contiguous UNSIGNED array gives each session's idle seconds,
// and the thread COUNTS, into an int, the sessions idle longer than their
// application's timeout (an UNSIGNED table gathered by the column). An INT
// COUNT of a contiguous unsigned compared with a gathered unsigned over a CSR
// row; power-law rows. Written for issue 22's twentieth held-out set, before
// any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SS_BLOCK
#define SS_BLOCK 128
#endif

__global__ void count_expired_sessions(const int *__restrict__ row, const int *__restrict__ app,
                                       const unsigned *__restrict__ idle, const unsigned *__restrict__ timeout,
                                       int *__restrict__ expired, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) c += idle[k] > timeout[app[k]] ? 1 : 0;
  expired[i] = c;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 163840)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "stale_sessions: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 2001)));
  const size_t nnz = a.col.size();
  // Idle seconds 0 to 3600 from the generated values; timeouts 60 to 3600
  // seconds, in steps of 60, from 32-bit hashes of the application id.
  std::vector<unsigned> idle(nnz);
  for (size_t k = 0; k < nnz; ++k) idle[k] = unsigned((a.val[k] + 1.0f) * 1800.0f);
  std::vector<unsigned> timeout(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    unsigned h = unsigned(s) * 0x9E3779B9u + 2002u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    timeout[size_t(s)] = 60u * (1u + (h >> 8) % 60u);
  }
  int *drow = loops::to_device(a.rowptr), *dapp = loops::to_device(a.col);
  unsigned *didle = loops::to_device(idle), *dtimeout = loops::to_device(timeout);
  int *dexpired = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * nnz + 8.0 * n, [&] {
    count_expired_sessions<<<(n + SS_BLOCK - 1) / SS_BLOCK, SS_BLOCK>>>(drow, dapp, didle, dtimeout, dexpired, n);
  });
  std::vector<int> got = loops::from_device(dexpired, size_t(n));
  // Integer counts: exact.
  size_t bad = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    int c = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      c += idle[size_t(k)] > timeout[size_t(a.col[size_t(k)])] ? 1 : 0;
    total += size_t(c);
    if (got[size_t(i)] != c) ++bad;
  }
  std::printf("stale_sessions: %d gateways, %zu sessions, %zu expired%s\n", n, nnz, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
