struct Opaque;
__global__ void k(float *out) {
  Opaque local[8];
  out[threadIdx.x] = 0.0f;
}
