struct Opaque;
__global__ void k() { extern __shared__ Opaque s[]; }
