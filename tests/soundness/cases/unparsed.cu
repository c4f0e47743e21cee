// Soundness suite: loops with code clang could not parse, as an editor sees a
// file mid-edit or a project analysed without one of its include paths or
// -D flags. Clang keeps some of that code only as a recovery expression and
// drops some without a trace, so nothing is known of what it reads, writes or
// synchronises: no such loop is called independent or given to other
// threads. A loop elsewhere in the file keeps its offers. Ground truth per
// loop on its header line; see scalars.cu. This file does not compile (the
// errors are the point): no goldens, no GPU run.
#define N 64

// A helper the loop below calls: its body calls what was never declared (a
// header missing from the include path), so it is not known to be pure.
__device__ float calibrated(const float *x, int i) {
  return apply_calibration(x[i]);
}

// An update through a function no header declared: it may write anywhere in
// `a`, including the elements other iterations read.
__global__ void undeclared_call(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) { // truth: unproven
    s += b[t * N + i];
    undeclared_update(a, t, i);
  }
  a[t] = s;
}

// A macro from a missing -D: clang drops the whole statement, so the body it
// sees is not the body nvcc builds.
__global__ void dropped_statement(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) { // truth: unproven
    s += b[t * N + i] * SCALE_FROM_THE_BUILD;
    a[t * N + i] = s;
  }
}

// An accumulator of a type no header declared.
__global__ void unknown_type(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Accumulator acc;
  for (int i = 0; i < N; ++i) // truth: unproven
    acc += b[t * N + i];
  a[t] = acc;
}

// A bound clang could not read.
__global__ void unknown_bound(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < ROW_LENGTH_FROM_THE_BUILD; ++i) // truth: unproven
    s += b[t * N + i];
  a[t] = s;
}

// A helper whose body did not parse.
__global__ void unparsed_helper(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) // truth: unproven
    s += calibrated(b, t * N + i);
  a[t] = s;
}

// A helper whose only statement clang dropped (a macro from a missing -D):
// its body looks empty, and pure, where nvcc builds a scaling.
__device__ float scaled(float x) { return x * GAIN_FROM_THE_BUILD; }

__global__ void dropped_helper(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) // truth: unproven
    s += scaled(b[t * N + i]);
  a[t] = s;
}

// The row itself comes from code clang dropped, outside the loop: a shift
// the build defines may read threadIdx, which a rewrite of the loop renames
// or moves to another thread.
__global__ void row_from_the_build(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x + ROW_SHIFT_FROM_THE_BUILD;
  float s = 0;
  for (int i = 0; i < N; ++i) // truth: unproven
    s += b[t * N + i];
  a[t] = s;
}

// The same through a helper that did not parse.
__device__ int shifted_row() { return blockIdx.x * blockDim.x + threadIdx.x + ROW_SHIFT_FROM_THE_BUILD; }

__global__ void row_from_unparsed_helper(float *a, const float *b) {
  int t = shifted_row();
  float s = 0;
  for (int i = 0; i < N; ++i) // truth: unproven
    s += b[t * N + i];
  a[t] = s;
}

// Parsed in full: the errors above do not spread to it.
__global__ void row_sums(float *a, const float *b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) // truth: independent
    s += b[t * N + i];
  a[t] = s;
}
