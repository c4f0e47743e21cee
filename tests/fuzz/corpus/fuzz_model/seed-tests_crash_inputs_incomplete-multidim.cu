struct Opaque;
__global__ void k() {
  __shared__ Opaque s[4][8];
  Opaque l[2][3];
  __shared__ float ok[4][8];
}
