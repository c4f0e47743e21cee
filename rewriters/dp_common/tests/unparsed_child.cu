// A child with code clang could not parse: its cooperative-groups barrier
// names a namespace whose header is not included (an include path the
// analysis was not given). Nothing is known of whether it synchronises, so
// no rewrite runs its threads in another thread or renames its built-ins
// (threshold, the launch templates, aggregation and coarsening refuse, naming
// the line). The file does not compile; only refusal tests use it.
__global__ void group_scale(float *x, unsigned first, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[first + i] *= 2.0f;
  cg::this_thread_block().sync();
  if (i < n) x[first + i] += x[first + (i + 1) % n];
}

__global__ void scale_rows(float *x, const unsigned *row, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && row[r + 1] > row[r])
    group_scale<<<(row[r + 1] - row[r] + 31) / 32, 32>>>(x, row[r], row[r + 1] - row[r]); /*^*/
}

// A recursion with a call no header declared: what its threads do is unknown.
__global__ void visit_tree(const unsigned *off, const unsigned *kids, unsigned *val, unsigned node) {
  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < off[node + 1]) {
    unsigned child = kids[slot];
    val[child] = mark_visited(val, node);
    visit_tree<<<1, 32>>>(off, kids, val, child);
  }
}

int main() {
  scale_rows<<<1, 32>>>(nullptr, nullptr, 0);
  visit_tree<<<1, 32>>>(nullptr, nullptr, nullptr, 0u);
  return 0;
}

// A statement clang drops without a node (a macro from a missing -D), in a
// helper the child calls: the error still counts as the child's.
__device__ void scale_entry(float *x, unsigned i) { x[i] *= SCALE_FROM_THE_BUILD; }

__global__ void scale_span(float *x, unsigned first, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scale_entry(x, first + i);
}

__global__ void scale_spans(float *x, const unsigned *row, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && row[r + 1] > row[r])
    scale_span<<<(row[r + 1] - row[r] + 31) / 32, 32>>>(x, row[r], row[r + 1] - row[r]); /*^dropped*/
}
