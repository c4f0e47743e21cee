// Intra-warp CUDA-NP helpers (np::intra<S>): broadcast, reductions and scans of
// every operator and several types for S in {2,4,8,16,32}, against a CPU
// reference; trip counts not a multiple of S and smaller than S; masters that
// return early together with their slaves (`if (...) return;`), which leaves
// holes of whole groups inside warps and a partial last block.
#include "np_test_body.cuh"

using namespace nestor;

template <int S> void run_width(test::checker& ck, std::mt19937_64& rng) {
  // 96 threads: 3 warps, a multiple of every S; 301 masters leave the last
  // block partly empty.
  constexpr unsigned threads = 96;
  test::run_np_all_ops<np::intra<S>, true>(ck, "intra<" + std::to_string(S) + ">", dim3(threads),
                                           threads / S, 301, rng);
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(20240611);
  run_width<2>(ck, rng);
  run_width<4>(ck, rng);
  run_width<8>(ck, rng);
  run_width<16>(ck, rng);
  run_width<32>(ck, rng);
  return ck.finish("np_intra_test");
}
