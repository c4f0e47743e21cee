__global__ void gone(int *p) = delete;
__global__ void parent(int *p) { gone<<<1, 1>>>(p); }
