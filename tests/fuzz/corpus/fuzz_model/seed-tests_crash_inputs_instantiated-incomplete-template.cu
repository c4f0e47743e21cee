struct Opaque;
template <typename T>
__global__ void k() { __shared__ T s[4]; T l[2]; }
void host() { k<Opaque><<<1, 1>>>(); }
