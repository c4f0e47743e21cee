struct Packet { int n; float data[]; };
__global__ void k() {
  __shared__ Packet p[2];
  Packet local;
  extern __shared__ Packet dyn[];
}
