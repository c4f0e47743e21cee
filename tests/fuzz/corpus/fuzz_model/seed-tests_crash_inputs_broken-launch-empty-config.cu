__global__ void child(int *p) {}
__global__ void parent(int *p) {
  child<<<>>>(p);
  child<<<1>>>(p);
  child<<<1, 2, 3, 4, 5>>>(p);
}
