__global__ void v(int n, ...) {}
struct Opaque;
__global__ void d(int *p, Opaque *o = nullptr, int n = sizeof(Opaque)) {}
void host() { v<<<1, 1>>>(1, 2, 3); d<<<1, 1>>>(nullptr); }
