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
__global__ void graph_bfs(const unsigned *off, const unsigned *nbrs, unsigned *level, unsigned node) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = nbrs[slot];
    unsigned old = atomicMin(&level[child], level[node] + 1);
    if (old > level[node] + 1) graph_bfs<<<(off[child + 1] - off[child] + 31) / 32, 32>>>(off, nbrs, level, child);
  }
}

// A depth parameter bounded by a visible limit: rec-hier maps it, rec-flat
// (whose worklist holds nodes only) refuses.
// One child's pre-order statements (bounded, lines 60-67).
__device__ __forceinline__ void bounded_nestor_pre(const unsigned *off, const unsigned *kids, unsigned *depth_of, unsigned node, int depth, int max_depth, unsigned int child) {
  depth_of[child] = depth + 1;
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool bounded_nestor_recurses(const unsigned *off, const unsigned *kids, unsigned *depth_of, unsigned node, int depth, int max_depth, unsigned int child) {
  return depth + 1 < max_depth;
}

// bounded after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren.
__global__ void bounded(const unsigned *off, const unsigned *kids, unsigned *depth_of, unsigned node, int depth, int max_depth) {
  __shared__ int nestor_recurse, nestor_deeper;
  for (unsigned int nestor_slot = off[node] + blockIdx.x; nestor_slot < off[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = kids[nestor_slot];
    if (threadIdx.x == 0) {
      bounded_nestor_pre(off, kids, depth_of, node, depth, max_depth, child);
      nestor_recurse = bounded_nestor_recurses(off, kids, depth_of, node, depth, max_depth, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = off[child] + threadIdx.x; nestor_g < off[child + 1]; nestor_g += blockDim.x)
        if (bounded_nestor_recurses(off, kids, depth_of, child, depth + 1, max_depth, kids[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          bounded<<<off[child + 1] - off[child], blockDim.x>>>(off, kids, depth_of, child, depth + 1, max_depth);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = off[child] + threadIdx.x; nestor_g < off[child + 1]; nestor_g += blockDim.x)
          bounded_nestor_pre(off, kids, depth_of, child, depth + 1, max_depth, kids[nestor_g]);
      }
    }
    __syncthreads(); // the flags are reused by the next child
  }
}

void host(const unsigned *off, const unsigned *kids, unsigned *val, cudaStream_t st) {
  graph_bfs<<<1, 32>>>(off, kids, val, 0u);
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
