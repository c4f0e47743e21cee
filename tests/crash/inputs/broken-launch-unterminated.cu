__global__ void child(int *p) {}
__global__ void parent(int *p) {
  child<<<1, 32(p);
  for (int i = 0; i < 4; ++i) child<<<i, 32>>(p);
}
