// Held-out case (bench/mapping/heldout12.tsv): the integer sparse
// matrix-vector product of a pruned, quantised network layer (the inference
// step of an int8 sparse fully-connected layer, one output neuron per
// thread): row r of a CSR matrix holds the neuron's surviving 8-bit signed
// weights, the input activations are 16-bit unsigned (after a ReLU and a
// requantisation), and the thread accumulates weight * activation in a
// 32-bit int, then requantises with a per-row scale. An integer sum over a
// row with a signed byte and a gathered unsigned short per entry; power-law
// and "longrows" rows. Written for issue 22's twelfth held-out set, before
// any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef Q8_BLOCK
#define Q8_BLOCK 128
#endif

__global__ void int8_spmv_rows(const int *__restrict__ rowptr, const int *__restrict__ col,
                               const signed char *__restrict__ w, const unsigned short *__restrict__ act,
                               const float *__restrict__ row_scale, float *__restrict__ out, int nrows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  int acc = 0;
  for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) acc += int(w[e]) * int(act[col[e]]);
  out[r] = float(acc) * row_scale[r];
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 5));
  if (n < 1) {
    std::fprintf(stderr, "int8_spmv: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1221)));
  const size_t nnz = a.col.size();
  // Weights -127..127 from the harness's values, activations 0..4095,
  // row scales about 1e-6 (the integer sums are exact; one float product).
  std::vector<signed char> w(nnz);
  for (size_t e = 0; e < nnz; ++e) w[e] = (signed char)std::lround(a.val[e] * 127.0f);
  std::vector<unsigned short> act(static_cast<size_t>(n));
  std::vector<float> scale = loops::random_floats(size_t(n), 1223u, 0.5e-6f, 2e-6f);
  for (int i = 0; i < n; ++i) {
    unsigned h = unsigned(i) * 0x9E3779B9u + 1222u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    act[size_t(i)] = (unsigned short)(h & 4095u);
  }
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  signed char *dw = loops::to_device(w);
  unsigned short *dact = loops::to_device(act);
  float *dscale = loops::to_device(scale), *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * nnz + 1.0 * nnz + 2.0 * nnz + 12.0 * n, [&] {
    int8_spmv_rows<<<(n + Q8_BLOCK - 1) / Q8_BLOCK, Q8_BLOCK>>>(rowptr, col, dw, dact, dscale, out, n);
  });
  std::vector<float> got = loops::from_device(out, size_t(n));
  size_t bad = 0;
  for (int r = 0; r < n; ++r) {
    long long acc = 0;
    for (int e = a.rowptr[size_t(r)]; e < a.rowptr[size_t(r) + 1]; ++e)
      acc += int(w[size_t(e)]) * int(act[size_t(a.col[size_t(e)])]);
    const float want = float(int(acc)) * scale[size_t(r)];
    if (std::fabs(got[size_t(r)] - want) > 1e-6f * std::max(1.0f, std::fabs(want))) ++bad;
  }
  std::printf("int8_spmv: %d rows, %zu weights%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
