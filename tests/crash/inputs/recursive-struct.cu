struct Node { Node next; int value; };
__global__ void k(int *out) {
  __shared__ Node nodes[4];
  Node local[2];
  out[threadIdx.x] = nodes[0].value;
}
