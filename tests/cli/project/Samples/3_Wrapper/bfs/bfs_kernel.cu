// Rodinia's bfs layout: Node and MAX_THREADS_PER_BLOCK come from bfs.cu,
// which #includes this file after declaring them; it has no database entry.
__global__ void bfsKernel(const Node *nodes, const int *edges, const int *cost, int *next, int n) {
  int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
  if (tid < n) {
    int best = cost[tid];
    for (int i = nodes[tid].starting; i < nodes[tid].starting + nodes[tid].no_of_edges; i++)
      best = min(best, cost[edges[i]] + 1);
    next[tid] = best;
  }
}
