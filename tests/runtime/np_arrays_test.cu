// Live local arrays of CUDA-NP (cuda-np.md 3.3): the placement policy and the
// three homes a rewriter can give `float a[N]` (slave registers, shared memory,
// global memory) behind the same `a[i]` syntax, for intra- and inter-warp NP.
#include <nestor/np.cuh>
#include "runtime_test_util.cuh"

using namespace nestor;

// The 384-byte policy, checked at compile time.
static_assert(np::choose_array_home(true, 600) == np::array_home::registers, "iterator-indexed arrays are split");
static_assert(np::choose_array_home(false, 150 * sizeof(float)) == np::array_home::global, "600 B goes global");
static_assert(np::choose_array_home(false, 64 * sizeof(float)) == np::array_home::shared, "256 B goes shared");
static_assert(np::choose_array_home(false, 256, 200) == np::array_home::global, "baseline shared use counts");
static_assert(np::choose_array_home(false, 100, 200) == np::array_home::shared, "184 B left for 100 B");
static_assert(np::choose_array_home(false, 383) == np::array_home::shared, "below 384 is shared");
static_assert(np::choose_array_home(false, 384) == np::array_home::global, "384 is not below 384");

constexpr int N = 150;  // Figure 5: NPOINTS = 150, not a multiple of any S.
enum home { in_registers, in_shared, in_global, in_global_pool };

// Figure 5's shape: loop 1 fills a[i], loop 2 reduces sum a[i]^2. For shared
// and global homes a third loop reads the elements written by *other* slaves
// (i = S-1-slave, ...), which needs the barrier between the loops.
template <class G, class A>
__device__ void arrays_body(A& a, const float* in, float* out, long long m, bool active) {
  constexpr int S = G::slave_size;
  const int s = G::slave_id();
  const float* x = in + (active ? m : 0) * N;
  for (int i = s; i < N; i += S) a[i] = x[i] * 2.0f + float(i);
  float sq = 0.0f;
  for (int i = s; i < N; i += S) sq += a[i] * a[i];
  const float sum_sq = G::template reduce<op::add>(sq);
  if (active && G::is_master()) out[2 * m] = sum_sq;
}

template <class G, class A>
__device__ void cross_body(A& a, float* out, long long m, bool active) {
  constexpr int S = G::slave_size;
  G::sync();
  float cross = 0.0f;
  for (int i = S - 1 - G::slave_id(); i < N; i += S) cross += a[i];
  const float sum = G::template reduce<op::add>(cross);
  if (active && G::is_master()) out[2 * m + 1] = sum;
}

template <class G, int Home, int MastersPerBlock>
__global__ void arrays_kernel(const float* in, float* pool, float* out, long long masters) {
  const long long m = (long long)G::global_master_id();
  const bool active = m < masters;  // inactive masters stay (inter-warp barriers)
  if constexpr (Home == in_registers) {
    NESTOR_NP_ARRAY_REGISTERS(G, float, a, N);
    arrays_body<G>(a, in, out, m, active);
  } else if constexpr (Home == in_shared) {
    NESTOR_NP_ARRAY_SHARED(G, float, a, N, MastersPerBlock);
    arrays_body<G>(a, in, out, m, active);
    cross_body<G>(a, out, m, active);
  } else if constexpr (Home == in_global) {
    NESTOR_NP_ARRAY_GLOBAL(G, float, a, N, pool);
    arrays_body<G>(a, in, out, m, active);
    cross_body<G>(a, out, m, active);
  } else {
    // What the rewriter emits: the second region of a host pool (after a
    // 4-int array of every master), the pool from np::array_pool.
    NESTOR_NP_ARRAY_GLOBAL_AT(G, int, first, 4, pool, 0);
    NESTOR_NP_ARRAY_GLOBAL_AT(G, float, a, N, pool, 16);
    if (G::is_master())
      for (int i = 0; i < 4; ++i) first[i] = -1;
    arrays_body<G>(a, in, out, m, active);
    cross_body<G>(a, out, m, active);
    G::sync();
    if (active && G::is_master() && (first[0] != -1 || first[3] != -1)) out[2 * m] = -12345.0f; // overlap
  }
}

template <class G, int Home, int MastersPerBlock>
void run_case(test::checker& ck, const char* name, dim3 block, long long masters, std::mt19937_64& rng) {
  std::vector<float> in(size_t(masters) * N);
  for (auto& e : in) e = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  const unsigned blocks = unsigned((masters + MastersPerBlock - 1) / MastersPerBlock);
  float* d_in = test::to_device(in);
  float* d_pool = test::device_zeros<float>(size_t(blocks) * MastersPerBlock * N);
  float* d_out = test::device_zeros<float>(size_t(masters) * 2);
  float* pool = d_pool;
  if (Home == in_global_pool)  // one site: grows when a later case needs more
    pool = static_cast<float*>(np::array_pool<1>(dim3(blocks), MastersPerBlock, 16 + N * sizeof(float), "arrays_kernel"));
  arrays_kernel<G, Home, MastersPerBlock><<<blocks, block>>>(d_in, pool, d_out, masters);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  auto out = test::to_host(d_out, size_t(masters) * 2);
  for (long long m = 0; m < masters; ++m) {
    double sq = 0, sum = 0;
    for (int i = 0; i < N; ++i) {
      const float a = in[m * N + i] * 2.0f + float(i);
      sq += double(a) * a;
      sum += a;
    }
    const std::string at = std::string(name) + " master " + std::to_string(m);
    NESTOR_EXPECT(ck, out[2 * m], float(sq), at + " sum of squares");
    if (Home != in_registers) NESTOR_EXPECT(ck, out[2 * m + 1], float(sum), at + " cross-slave sum");
  }
  NESTOR_CUDA_CHECK(cudaFree(d_in));
  NESTOR_CUDA_CHECK(cudaFree(d_pool));
  NESTOR_CUDA_CHECK(cudaFree(d_out));
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(7);
  // Intra-warp, S = 8, 128 threads = 16 masters per block.
  run_case<np::intra<8>, in_registers, 16>(ck, "intra<8> registers", dim3(128), 100, rng);
  run_case<np::intra<8>, in_shared, 16>(ck, "intra<8> shared", dim3(128), 100, rng);
  run_case<np::intra<8>, in_global, 16>(ck, "intra<8> global", dim3(128), 100, rng);
  run_case<np::intra<32>, in_shared, 4>(ck, "intra<32> shared", dim3(128), 37, rng);
  // Inter-warp, block (32, 4).
  run_case<np::inter<32, 4>, in_registers, 32>(ck, "inter<32,4> registers", dim3(32, 4), 100, rng);
  run_case<np::inter<32, 4>, in_shared, 32>(ck, "inter<32,4> shared", dim3(32, 4), 100, rng);
  run_case<np::inter<32, 4>, in_global, 32>(ck, "inter<32,4> global", dim3(32, 4), 100, rng);
  // The host pool of the rewriter, reused and then grown (37 -> 100 -> 3000 masters).
  run_case<np::intra<8>, in_global_pool, 16>(ck, "intra<8> pool", dim3(128), 37, rng);
  run_case<np::intra<8>, in_global_pool, 16>(ck, "intra<8> pool again", dim3(128), 100, rng);
  run_case<np::inter<32, 4>, in_global_pool, 32>(ck, "inter<32,4> pool grown", dim3(32, 4), 3000, rng);
  return ck.finish("np_arrays_test");
}
