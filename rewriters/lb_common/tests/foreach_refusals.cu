// Loops of independent iterations (the for-each form of the load-balancing
// templates) that the templates refuse, each for the reason named in
// tests/rewrite/templates.cmake.
__global__ void carried(const int *off, const int *adj, int *flag, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int seen = 0;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^carried_local*/
    flag[adj[e]] = 1;
    seen = 1;
  }
  out[v] = seen;
}

__global__ void reads_local(const int *off, const int *adj, int *level, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int next = level[v] + 1;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^reads_local*/
    level[adj[e]] = next;
  }
}

__global__ void leaves_early(const int *off, const int *adj, int *flag, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^break*/
    if (adj[e] < 0) break;
    flag[adj[e]] = 1;
  }
}

__global__ void thread_ids(const int *off, const int *adj, int *owner, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^thread_ids*/
    owner[adj[e]] = threadIdx.x;
  }
}

// The loop stores into `level`, which the code before it reads, and the kernel
// writes `done` after the loop: the owner's replay, after the block-mapped
// pass ran the loop, could see its own stores and skip or repeat the write.
__global__ void replay_diverges(const int *off, const int *adj, int *level, int *done, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != 0) return;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^replay_diverges*/
    level[adj[e]] = 1;
  }
  done[v] = 1;
}

// The same loop with nothing after it (bfs's shape): the replay has no effect
// to repeat or skip, so the templates apply.
__global__ void replay_unobservable(const int *off, const int *adj, int *level, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != 0) return;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^replay_unobservable*/
    level[adj[e]] = 1;
  }
}

// Stores after the loop, but the loop's stores go elsewhere: no hazard.
__global__ void replay_other_memory(const int *off, const int *adj, const int *level, int *mark, int *done, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != 0) return;
  #pragma np parallel for
  for (int e = off[v]; e < off[v + 1]; ++e) { /*^replay_other_memory*/
    mark[adj[e]] = 1;
  }
  done[v] = 1;
}
