#define LAUNCH(k, g) k<<<g,
__global__ void child(int *p) {}
__global__ void parent(int *p) {
  LAUNCH(child, 4) 32>>>(p);
  LAUNCH(child, 4) >>>(p);
}
