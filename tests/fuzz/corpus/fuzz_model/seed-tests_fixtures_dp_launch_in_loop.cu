// dp-launch-in-loop: one child grid per iteration.
__global__ void child(float *row, int n) {
  int i = threadIdx.x;
  if (i < n) row[i] *= 2;
}

__global__ void parent(float *m, int rows, int cols) {
  if (threadIdx.x != 0) return;
  for (int r = 0; r < rows; r++) {
    // expect@+2: dp-launch-in-loop "every iteration of the loop at line 9"
    // launch@+1: enclosing_loops=0
    child<<<1, cols>>>(m + r * cols, cols);
  }
}
