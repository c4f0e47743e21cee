struct Opaque;
__global__ void child(int *p) { p[threadIdx.x] = 0; }
__global__ void parent(int *p) {
  if (threadIdx.x == 0) child<<<sizeof(Opaque), 32, sizeof(Opaque[4])>>>(p);
  for (int i = 0; i < sizeof(Opaque); ++i) p[i] = i;
}
