struct Opaque;
__global__ void k() { __shared__ Opaque s; }
