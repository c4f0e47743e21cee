struct Opaque;
extern Opaque g;
__global__ void child(Opaque o) {}
__global__ void parent() { child<<<1, sizeof(Opaque)>>>(g); }
