struct Shape { virtual __device__ float area() = 0; };
__global__ void k() {
  __shared__ Shape s[4];
  Shape l[2];
}
