#define ONLY_LEADER if (threadIdx.x == 0)
#define BEGIN_ROWS(n) for (int r = 0; r < (n); r++)
__global__ void child(int *p) { p[threadIdx.x] = 1; }
__global__ void k(int *p, int n) {
  BEGIN_ROWS(n)
    ONLY_LEADER
      child<<<1, n>>>(p + r);
}
