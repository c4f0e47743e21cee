__global__ int k(int *p) { return p[0]; }
__global__ void parent(int *p) { int r = k<<<1, 1>>>(p); }
