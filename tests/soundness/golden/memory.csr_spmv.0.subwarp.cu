// Soundness suite: memory a loop body reads and writes (arrays, pointers,
// members, globals, atomics, aliasing). Ground truth per loop on its header
// line; see scalars.cu for the meaning of each word.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define N 64
#define INF 0x7fffffff

struct Stats { float total; int count; };
struct Node { int value; int next; };

__device__ int g_counter;
__device__ float g_sum;

__device__ void store_at(float *out, int i, float v) { out[i] = v; }
__device__ void raise_flag(int *flag) { *flag = 1; }

__global__ void shifted_read(float *a) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 1; i < N; ++i) a[row * N + i] += a[row * N + i - 1]; // truth: carried
}

__global__ void shifted_forward(float *a) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N - 1; ++i) a[row * N + i] = a[row * N + i + 1] * 0.5f; // truth: carried
}

__global__ void same_element_update(float *a, const float *b) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) a[row * N + i] = a[row * N + i] * b[row * N + i]; // truth: independent
}

__global__ void stencil_may_alias(float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 1; i < N - 1; ++i) // truth: carried
    out[row * N + i] = in[row * N + i - 1] + in[row * N + i + 1];
}

__global__ void stencil_restrict(const float *__restrict__ in, float *__restrict__ out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 1; i < N - 1; ++i) // truth: independent
    out[row * N + i] = in[row * N + i - 1] + in[row * N + i + 1];
}

__global__ void other_element_type(const int *idx, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 1; i < N; ++i) out[row * N + i] = (float)idx[row * N + i - 1]; // truth: independent
}

__global__ void same_index_copy(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = in[row * N + i] + 1.0f; // truth: independent
}

__global__ void count_through_pointer(const float *a, int *cnt) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) // truth: carried
    if (a[row * N + i] > 0.0f) ++*cnt;
}

__global__ void member_through_arrow(const float *a, Stats *s) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) s->total += a[row * N + i]; // truth: carried
}

__global__ void member_store_arrow(const float *a, Stats *s) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) s[row].count = i; // truth: carried
}

__global__ void strided_write(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * 2 * N + 2 * i] = a[row * N + i]; // truth: independent
}

__global__ void halved_index(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i / 2] = a[row * N + i]; // truth: carried
}

__global__ void modulo_index(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * 4 + i % 4] = a[row * N + i]; // truth: carried
}

__global__ void scatter(const int *idx, const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[idx[row * N + i]] = a[row * N + i]; // truth: carried
}

__global__ void private_histogram(const int *in, int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int mine[16] = {0};
  for (int i = 0; i < N; ++i) mine[in[row * N + i] & 15]++; // truth: carried
  for (int b = 0; b < 16; ++b) out[row * 16 + b] = mine[b]; // truth: independent
}

__global__ void atomic_histogram(const int *in, int *hist) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) atomicAdd(&hist[in[row * N + i] & 255], 1); // truth: independent
}

__global__ void racy_histogram(const int *in, int *hist) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) hist[in[row * N + i] & 255] += 1; // truth: carried
}

__global__ void exchange(const int *in, int *slot) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) atomicExch(&slot[row], in[row * N + i]); // truth: carried
}

__global__ void cas_max(const int *in, int *best) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: carried
    int old = best[row];
    while (old < in[row * N + i]) { // truth: carried
      int seen = atomicCAS(&best[row], old, in[row * N + i]);
      if (seen == old) break;
      old = seen;
    }
  }
}

__global__ void atomic_read_mixed(const int *in, int *total, int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: carried
    atomicAdd(total, in[row * N + i]);
    out[row * N + i] = *total;
  }
}

__global__ void global_scalar(const int *in) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) g_counter += in[row * N + i]; // truth: carried
}

__global__ void global_atomic(const float *in) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) atomicAdd(&g_sum, in[row * N + i]); // truth: independent
}

__global__ void shared_tile(const float *in, float *out) {
  __shared__ float tile[128 * 8];
  for (int i = 0; i < 8; ++i) tile[threadIdx.x * 8 + i] = in[blockIdx.x * 1024 + threadIdx.x * 8 + i]; // truth: independent
  out[blockIdx.x * 128 + threadIdx.x] = tile[threadIdx.x * 8];
}

__global__ void shared_same_cell(const float *in, float *out) {
  __shared__ float cell[128];
  cell[threadIdx.x] = 0.0f;
  for (int i = 0; i < N; ++i) cell[threadIdx.x] += in[blockIdx.x * N + i]; // truth: carried
  out[blockIdx.x * 128 + threadIdx.x] = cell[threadIdx.x];
}

__global__ void register_block(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = in[row * 8 + k]; // truth: independent
  out[row] = acc[0] + acc[7];
}

__global__ void matrix_rows(const float *a, float *out, int m) {
  int blk = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) // truth: independent
    for (int j = 0; j < m; ++j) out[blk * N * m + i * m + j] = a[blk * N * m + i * m + j] * 2.0f; // truth: independent
}

__global__ void matrix_rows_overlap(const float *a, float *out, int m) {
  int blk = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) // truth: carried
    for (int j = 0; j < m + 1; ++j) out[blk * N * m + i * m + j] = a[i] * 2.0f; // truth: independent
}

__global__ void inner_may_alias(float *a, float *out, int m) {
  int blk = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < m; ++j) out[blk * m + j] = a[j + 1] * 2.0f; // truth: carried
}

__global__ void row_pointer(const float *a, float *out, int m) {
  int blk = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: independent
    float *row = out + blk * N * m + i * m;
    for (int j = 0; j < m; ++j) row[j] = a[j] * (float)i; // truth: independent
  }
}

__global__ void element_reference(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: unproven
    float &r = out[row * N + i];
    r = a[row * N + i] * 2.0f;
  }
}

__global__ void store_helper(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) store_at(out, row * N + i, a[row * N + i]); // truth: unproven
}

__global__ void flag_helper(const float *a, int *flag) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) // truth: carried
    if (a[row * N + i] < 0.0f) raise_flag(flag);
}

__global__ void readonly_cache(const float *in, float *__restrict__ out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = __ldg(&in[row * N + i]) * 2.0f; // truth: independent
}

__global__ void early_exit(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: carried
    if (a[row * N + i] < 0.0f) break;
    out[row * N + i] = a[row * N + i];
  }
}

__global__ void early_return(const float *a, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: carried
    if (a[row * N + i] < 0.0f) return;
    out[row * N + i] = a[row * N + i];
  }
}

__global__ void linked_list(const Node *nodes, int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int p = row;
  for (int i = 0; i < N; ++i) { // truth: carried
    out[row * N + i] = nodes[p].value;
    p = nodes[p].next;
  }
}

__global__ void bfs_relax(const unsigned *offsets, const unsigned *targets, unsigned *levels, int *changed,
                          unsigned n, unsigned curr) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && levels[v] == curr) {
    for (unsigned e = offsets[v]; e < offsets[v + 1]; ++e) { // truth: independent
      unsigned u = targets[e];
      if (levels[u] == 0xffffffffu) {
        levels[u] = curr + 1;
        *changed = 1;
      }
    }
  }
}

__global__ void bfs_record_parent(const unsigned *offsets, const unsigned *targets, unsigned *parent, unsigned n) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    for (unsigned e = offsets[v]; e < offsets[v + 1]; ++e) { // truth: carried
      unsigned u = targets[e];
      if (parent[u] == 0xffffffffu) parent[u] = e;
    }
  }
}

__global__ void guard_reads_other(const unsigned *offsets, const unsigned *targets, int *mark, unsigned n) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    for (unsigned e = offsets[v]; e + 1 < offsets[v + 1]; ++e) { // truth: carried
      if (mark[targets[e]] == 0) mark[targets[e + 1]] = 1;
    }
  }
}

__global__ void sssp_relax(const unsigned *offsets, const unsigned *targets, const unsigned *weights, unsigned *dist,
                           int *next_active, int *changed, unsigned n) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned dv = dist[v];
    for (unsigned e = offsets[v]; e < offsets[v + 1]; ++e) { // truth: independent
      unsigned u = targets[e];
      unsigned nd = dv + weights[e];
      if (nd < atomicMin(&dist[u], nd)) {
        next_active[u] = 1;
        *changed = 1;
      }
    }
  }
}

__global__ void csr_spmv(const int *ptr, const int *col, const float *val, const float *x, float *y, int n) {
  // Sub-warp decomposition, width 8: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row < n) {
    float sum = 0.0f;
    int start = (nestor_np_group::is_master() ? (int)(ptr[row]) : (int)0), end = (nestor_np_group::is_master() ? (int)(ptr[row + 1]) : (int)0);
    // Sub-warp decomposition, width 8: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
    end = nestor_np_group::read_from_master(end); // live-in
    start = nestor_np_group::read_from_master(start); // live-in
    sum = nestor::subwarp::for_each_index<8>(start, end, [=](int e) { return val[e] * x[col[e]]; }, nestor::op::add{}, sum); // truth: independent
    if (nestor_np_group::is_master()) { y[row] = sum; }
  }
}

__global__ void in_place_prefix(float *a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 1; i < n; ++i) a[row * n + i] = a[row * n + i] + a[row * n + i - 1]; // truth: carried
}

__global__ void two_pointers_same_type(const float *b, float *a) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) a[row * N + i] = b[row * N + i] + b[row * N + i]; // truth: independent
}

__global__ void write_then_read_other(float *a, float *__restrict__ b) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: carried
    a[row * N + i] = 1.0f;
    b[row * N + i] = a[row * N + (i + 1) % N];
  }
}

// The independent kernels on deterministic inputs; the GPU differential test
// (tests/soundness/gpu) runs each offered rewrite of them against this.
int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int blocks = int(args.get("blocks", 2)), rows = blocks * 64, m = 4;
  const size_t cells = size_t(rows) * N;
  const size_t big = size_t(rows + 1) * N * m * 2;
  std::vector<float> hin = loops::random_floats(big, 21);
  std::vector<int> hidx(big);
  for (size_t i = 0; i < big; ++i) hidx[i] = int((i * 2654435761u) % 1000u);
  float *in = loops::to_device(hin);
  float *b = loops::to_device(loops::random_floats(big, 22));
  int *idx = loops::to_device(hidx);
  float *out = loops::device_zeros<float>(big);
  int *iout = loops::device_zeros<int>(big);
  loops::ResultFile file(args);
  auto keepf = [&](size_t n) { file.add(loops::from_device(out, n)); NESTOR_CUDA_CHECK(cudaMemset(out, 0, big * sizeof(float))); };
  auto keepi = [&](size_t n) { file.add(loops::from_device(iout, n)); NESTOR_CUDA_CHECK(cudaMemset(iout, 0, big * sizeof(int))); };

  NESTOR_CUDA_CHECK(cudaMemcpy(out, in, cells * sizeof(float), cudaMemcpyDeviceToDevice));
  same_element_update<<<blocks, 64>>>(out, b);
  keepf(cells);
  stencil_restrict<<<blocks, 64>>>(in, out);
  keepf(cells);
  other_element_type<<<blocks, 64>>>(idx, out);
  keepf(cells);
  same_index_copy<<<blocks, 64>>>(in, out);
  keepf(cells);
  strided_write<<<blocks, 64>>>(in, out);
  keepf(2 * cells);
  private_histogram<<<blocks, 64>>>(idx, iout);
  keepi(size_t(rows) * 16);
  atomic_histogram<<<blocks, 64>>>(idx, iout);
  keepi(256);
  global_atomic<<<blocks, 64>>>(in);
  float gs = 0;
  NESTOR_CUDA_CHECK(cudaMemcpyFromSymbol(&gs, g_sum, sizeof gs));
  file.add(std::vector<float>{gs});
  shared_tile<<<blocks, 128>>>(in, out);
  keepf(size_t(blocks) * 128);
  register_block<<<blocks, 64>>>(in, out);
  keepf(size_t(rows));
  matrix_rows<<<blocks, 64>>>(in, out, m);
  keepf(cells * m);
  matrix_rows_overlap<<<blocks, 64>>>(in, out, m);
  keepf(size_t(rows + 1) * N * m);
  row_pointer<<<blocks, 64>>>(in, out, m);
  keepf(cells * m);
  readonly_cache<<<blocks, 64>>>(in, out);
  keepf(cells);
  NESTOR_CUDA_CHECK(cudaMemcpy(out, in, cells * sizeof(float), cudaMemcpyDeviceToDevice));
  two_pointers_same_type<<<blocks, 64>>>(b, out);
  keepf(cells);

  // Graphs: a power-law CSR for BFS and SpMV; for SSSP only every fifth
  // vertex has edges, so no vertex both improves and relaxes (deterministic).
  loops::Csr g = loops::make_csr(rows, rows, 6, true, 23);
  std::vector<unsigned> off(g.rowptr.begin(), g.rowptr.end()), tgt(g.col.begin(), g.col.end());
  unsigned *d_off = loops::to_device(off), *d_tgt = loops::to_device(tgt);
  std::vector<unsigned> lv(size_t(rows), 0xffffffffu);
  for (int v = 0; v < rows; v += 7) lv[size_t(v)] = 0;
  unsigned *d_lv = loops::to_device(lv);
  int *changed = loops::device_zeros<int>(1);
  bfs_relax<<<blocks, 64>>>(d_off, d_tgt, d_lv, changed, unsigned(rows), 0u);
  std::vector<unsigned> lv_out = loops::from_device(d_lv, size_t(rows));
  file.add(std::vector<int>(lv_out.begin(), lv_out.end()));
  file.add(loops::from_device(changed, 1));

  std::vector<unsigned> soff(1, 0), stgt, sw;
  for (int v = 0; v < rows; ++v) {
    if (v % 5 == 0)
      for (int k = 0; k < 1 + v % 9; ++k) {
        stgt.push_back(unsigned((v * 31 + k * 17) % rows));
        sw.push_back(unsigned(1 + (v + k) % 13));
      }
    soff.push_back(unsigned(stgt.size()));
  }
  std::vector<unsigned> dist(size_t(rows), 0x7fffffffu);
  for (int v = 0; v < rows; v += 5) dist[size_t(v)] = 0;
  unsigned *d_soff = loops::to_device(soff), *d_stgt = loops::to_device(stgt), *d_sw = loops::to_device(sw);
  unsigned *d_dist = loops::to_device(dist);
  int *next = loops::device_zeros<int>(size_t(rows));
  NESTOR_CUDA_CHECK(cudaMemset(changed, 0, sizeof(int)));
  sssp_relax<<<blocks, 64>>>(d_soff, d_stgt, d_sw, d_dist, next, changed, unsigned(rows));
  std::vector<unsigned> dist_out = loops::from_device(d_dist, size_t(rows));
  file.add(std::vector<int>(dist_out.begin(), dist_out.end()));
  file.add(loops::from_device(next, size_t(rows)));
  file.add(loops::from_device(changed, 1));

  int *d_ptr = loops::to_device(g.rowptr), *d_col = loops::to_device(g.col);
  float *d_val = loops::to_device(g.val);
  csr_spmv<<<blocks, dim3(512, 1, 1) /* Sub-warp decomposition, width 8, was 64 */>>>(d_ptr, d_col, d_val, in, out, rows);
  keepf(size_t(rows));
  return 0;
}
