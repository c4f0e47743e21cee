struct Opaque;
struct Holder { Opaque inner; int x; };
__global__ void k() {
  __shared__ Holder h[2];
  Holder local[3];
}
