// Launch configuration and arguments with side effects: each must still be
// evaluated exactly once after a rewrite. The child launch sits in a loop.
__device__ unsigned next_chunk(unsigned* cursor, unsigned size) { return atomicAdd(cursor, size); }

__global__ void scale(float* a, unsigned first, unsigned count, float f) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) a[first + i] *= f;
}

__global__ void chunks_parent(float* a, unsigned* cursor, unsigned total, unsigned chunk) {
  unsigned taken = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned count = chunk + threadIdx.x % 7;
    scale<<<(count + 63) / 64, 64>>>(a, next_chunk(cursor, count), count, 1.0f + taken++); /*^*/
  }
}

int main() {
  chunks_parent<<<2, 64>>>(nullptr, nullptr, 0, 16);
  return 0;
}
