// Held-out case (bench/mapping/heldout18.tsv): which services' certificate
// bundles are still all valid at their next handshake (the expiry sweep a
// service mesh's control plane runs before it rotates credentials, one
// service per thread): row i of a CSR matrix lists the certificates service
// i trusts, a contiguous UNSIGNED array gives the time of each trust entry's
// next handshake, and the thread keeps a LOGICAL AND, written `ok &= ...` on
// an int flag, of the gathered UNSIGNED expiry time of the certificate being
// later than it. A LOGICAL AND of a gathered unsigned compared with a
// contiguous unsigned over a CSR row; "longrows" rows. Written for issue
// 22's eighteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef CC_BLOCK
#define CC_BLOCK 256
#endif

__global__ void all_certs_current(const int *__restrict__ row, const int *__restrict__ cert,
                                  const unsigned *__restrict__ handshake, const unsigned *__restrict__ expiry,
                                  int *__restrict__ valid, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int ok = 1;
  for (int k = row[i]; k < row[i + 1]; ++k) ok &= expiry[cert[k]] > handshake[k] ? 1 : 0;
  valid[i] = ok;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 524288)), avg = int(args.get("avg", 20));
  if (n < 1) {
    std::fprintf(stderr, "cert_chain: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "longrows") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1821)));
  const size_t nnz = a.col.size();
  // Handshakes within the next 30 days (seconds, from the generated
  // values); expiries from 32-bit hashes, one certificate in 2500 inside
  // that window and the rest a year out, so most bundles stay valid.
  std::vector<unsigned> handshake(nnz);
  for (size_t k = 0; k < nnz; ++k) handshake[k] = 1800000000u + unsigned((a.val[k] + 1.0f) * 1296000.0f);
  std::vector<unsigned> expiry(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) {
    unsigned h = unsigned(c) * 0x9E3779B9u + 1822u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    expiry[size_t(c)] = h % 2500u == 0u ? 1800000000u + (h >> 12) % 2592000u : 1831536000u + (h >> 8) % 86400u;
  }
  int *drow = loops::to_device(a.rowptr), *dcert = loops::to_device(a.col);
  unsigned *dhs = loops::to_device(handshake), *dexp = loops::to_device(expiry);
  int *dvalid = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 8.0 * nnz + 8.0 * n, [&] {
    all_certs_current<<<(n + CC_BLOCK - 1) / CC_BLOCK, CC_BLOCK>>>(drow, dcert, dhs, dexp, dvalid, n);
  });
  std::vector<int> got = loops::from_device(dvalid, size_t(n));
  // Flags: exact.
  size_t bad = 0, stale = 0;
  for (int i = 0; i < n; ++i) {
    int ok = 1;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      ok &= expiry[size_t(a.col[size_t(k)])] > handshake[size_t(k)] ? 1 : 0;
    stale += size_t(1 - ok);
    if (got[size_t(i)] != ok) ++bad;
  }
  std::printf("cert_chain: %d services, %zu trust entries, %zu with a stale certificate%s\n", n, nnz, stale,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
