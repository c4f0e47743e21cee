#include <nestor/rec.cuh>

// Recursive kernels that rec-hier / rec-flat refuse (tests/rewrite/recursion.cmake),
// each with the construct the reason names. Line numbers are part of the tests.
__global__ void binary(const unsigned *left, const unsigned *right, unsigned *size, unsigned node) {
  unsigned c = threadIdx.x == 0 ? left[node] : right[node];
  if (c != 0u) binary<<<1, 2>>>(left, right, size, c);
}

__global__ void carried(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node, unsigned budget) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    budget -= 1;
    if (budget > 0) carried<<<1, 32>>>(off, kids, val, child, budget);
  }
}

__global__ void needs_result(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    needs_result<<<1, 32>>>(off, kids, val, child);
    atomicAdd(&val[node], val[child]);
  }
}

__global__ void with_shared(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  __shared__ unsigned seen[32];
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    seen[threadIdx.x % 32] = child;
    with_shared<<<1, 32>>>(off, kids, val, child);
  }
}

__global__ void with_barrier(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    with_barrier<<<1, 32>>>(off, kids, val, child);
  }
}

// Unordered recursive BFS on a graph: recurse while the level improves. The
// condition depends on an atomic the kernel does (rec-hier refuses; rec-flat
// runs it level by level).
// One child: its pre-order statements, then whether it recurses (graph_bfs, lines 48-55).
__device__ __forceinline__ bool graph_bfs_nestor_visit(const unsigned *off, const unsigned *nbrs, unsigned *level, unsigned node, unsigned int child) {
  unsigned old = atomicMin(&level[child], level[node] + 1);
  return old > level[node] + 1;
}

// One level of graph_bfs's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void graph_bfs_nestor_level(const unsigned *off, const unsigned *nbrs, unsigned *level, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int node = nestor_frontier[nestor_f];
    const unsigned int child = nbrs[off[node] + (nestor_p - nestor_first[nestor_f])];
    if (graph_bfs_nestor_visit(off, nbrs, level, node, child))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(child));
  }
}

// graph_bfs's recursion from node, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void graph_bfs_nestor_flat(const unsigned *off, const unsigned *nbrs, unsigned *level, unsigned node) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(node);
  while (nestor_wl.expand(off)) {
    graph_bfs_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(off, nbrs, level, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
  }
}

// A depth parameter bounded by a visible limit: rec-hier maps it, rec-flat
// (whose worklist holds nodes only) refuses.
__global__ void bounded(const unsigned *off, const unsigned *kids, unsigned *depth_of, unsigned node, int depth,
                        int max_depth) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    depth_of[child] = depth + 1;
    if (depth + 1 < max_depth) bounded<<<1, 64>>>(off, kids, depth_of, child, depth + 1, max_depth);
  }
}

void host(const unsigned *off, const unsigned *kids, unsigned *val, cudaStream_t st) {
  graph_bfs_nestor_flat(off, kids, val, 0u);
  bounded<<<1, 64>>>(off, kids, val, 0u, 0, 8);
  needs_result<<<1, 32, 0, st>>>(off, kids, val, 0u);
}

// Pre-order only, but its host launch names a stream (rec-flat runs on the default one).
__global__ void on_stream(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    val[child] = val[node] + 1;
    on_stream<<<1, 32>>>(off, kids, val, child);
  }
}
void host_on_stream(const unsigned *off, const unsigned *kids, unsigned *val, cudaStream_t st) {
  on_stream<<<1, 32, 0, st>>>(off, kids, val, 0u);
}

// Loops over the children. Grid-stride: fine. A sibling sum carried through
// the loop: refused. One thread per node, but launched with 32 threads: refused.
__global__ void strided(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  for (unsigned s = off[node] + blockIdx.x * blockDim.x + threadIdx.x; s < off[node + 1]; s += blockDim.x * gridDim.x) {
    unsigned child = kids[s];
    val[child] = val[node] + 1;
    strided<<<2, 32>>>(off, kids, val, child);
  }
}
__global__ void sibling_sum(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned before = 0;
  for (unsigned s = off[node]; s < off[node + 1]; ++s) {
    unsigned child = kids[s];
    before += val[child];
    sibling_sum<<<1, 1>>>(off, kids, val, child);
  }
}
__global__ void serial_wide(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  for (unsigned s = off[node]; s < off[node + 1]; ++s) {
    unsigned child = kids[s];
    val[child] = val[node] + 1;
    serial_wide<<<1, 32>>>(off, kids, val, child);
  }
}
// The child's statements move the slot: which child the next statements see
// would change. Refused (reading the slot is fine: examples/trees/dewey_labels.cu).
__global__ void moves_slot(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned s = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < off[node + 1]) {
    unsigned child = kids[s];
    s += 1;
    val[child] = val[node] + s;
    moves_slot<<<1, 32>>>(off, kids, val, child);
  }
}
