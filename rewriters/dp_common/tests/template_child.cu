// A parent template launching a child template with the parent's own
// template argument (`count_hits<B><<<...>>>`), as tuned CDP codes pick a
// child block size: the model knows the child (its pattern) and the launch
// is serialisable, but the DP rewrites do not rewrite templates yet, and
// every one of them says so.
template <int B>
__global__ void count_hits(const int *adj, int first, int deg, int *hits) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicAdd(&hits[adj[first + j]], 1);
}

template <int B>
__global__ void hits_per_vertex(const int *row, const int *adj, int *hits, int nv) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  int first = row[v], deg = row[v + 1] - first;
  if (deg > 0) count_hits<B><<<(deg + B - 1) / B, B>>>(adj, first, deg, hits); /*^*/
}

int main() {
  hits_per_vertex<64><<<1, 128>>>(nullptr, nullptr, nullptr, 0);
  hits_per_vertex<128><<<1, 128>>>(nullptr, nullptr, nullptr, 0);
  return 0;
}
