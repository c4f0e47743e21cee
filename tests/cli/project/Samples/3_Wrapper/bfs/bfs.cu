#define MAX_THREADS_PER_BLOCK 256

struct Node {
  int starting;
  int no_of_edges;
};

#include "bfs_kernel.cu"

void runBfs(const Node *nodes, const int *edges, const int *cost, int *next, int n) {
  bfsKernel<<<(n + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK, MAX_THREADS_PER_BLOCK>>>(nodes, edges, cost, next, n);
}
