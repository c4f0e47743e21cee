// The issue's reproducer: a __shared__ array of an incomplete type.
struct Opaque;
__global__ void k() { __shared__ Opaque s[4]; }
