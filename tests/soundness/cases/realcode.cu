// Soundness suite: kernels written here in the styles of public CUDA projects
// (Rodinia's hotspot, pathfinder, backprop, kmeans, bfs and nw; the CUDA
// samples' histogram, reduction, matrixMul, transpose and scalarProd), used to
// count false claims of independence. Ground truth per loop on its header
// line; see scalars.cu.
#define BLOCK_SIZE 16
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define HEIGHT 16
#define WIDTH 16
#define BIN_COUNT 64
typedef unsigned int uint;
typedef unsigned char uchar;

struct GraphNode {
  int starting;
  int no_of_edges;
};

// hotspot style: iterate a 5-point stencil in shared memory.
__global__ void calculate_temp(int iteration, const float *power, const float *temp_src, float *temp_dst, int grid_cols,
                               float step_div_cap, float rx, float ry, float rz) {
  __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int index = grid_cols * (blockIdx.y * BLOCK_SIZE + ty) + blockIdx.x * BLOCK_SIZE + tx;
  temp_on_cuda[ty][tx] = temp_src[index];
  __syncthreads();
  for (int i = 0; i < iteration; i++) { // truth: collective
    int n = ty > 0 ? ty - 1 : ty, s = ty < BLOCK_SIZE - 1 ? ty + 1 : ty;
    int w = tx > 0 ? tx - 1 : tx, e = tx < BLOCK_SIZE - 1 ? tx + 1 : tx;
    temp_t[ty][tx] = temp_on_cuda[ty][tx] +
                     step_div_cap * (power[index] + (temp_on_cuda[s][tx] + temp_on_cuda[n][tx] - 2.0f * temp_on_cuda[ty][tx]) * ry +
                                     (temp_on_cuda[ty][e] + temp_on_cuda[ty][w] - 2.0f * temp_on_cuda[ty][tx]) * rx +
                                     (80.0f - temp_on_cuda[ty][tx]) * rz);
    __syncthreads();
    temp_on_cuda[ty][tx] = temp_t[ty][tx];
    __syncthreads();
  }
  temp_dst[index] = temp_on_cuda[ty][tx];
}

// pathfinder style: dynamic programming over rows, one barrier per row.
__global__ void dynproc_kernel(int iteration, const int *gpuWall, const int *gpuSrc, int *gpuResults, int cols,
                               int startStep) {
  __shared__ int prev[256];
  __shared__ int result[256];
  int tx = threadIdx.x;
  int xidx = blockIdx.x * 256 + tx;
  prev[tx] = gpuSrc[xidx];
  __syncthreads();
  for (int i = 0; i < iteration; i++) { // truth: collective
    int left = tx > 0 ? prev[tx - 1] : prev[tx];
    int right = tx < 255 ? prev[tx + 1] : prev[tx];
    int shortest = min(left, min(prev[tx], right));
    result[tx] = shortest + gpuWall[cols * (startStep + i) + xidx];
    __syncthreads();
    prev[tx] = result[tx];
    __syncthreads();
  }
  gpuResults[xidx] = prev[tx];
}

// backprop style: a tree reduction over the shared weight matrix.
__global__ void bpnn_layerforward(const float *input_cuda, float *input_hidden_cuda, float *hidden_partial_sum, int hid) {
  __shared__ float input_node[HEIGHT];
  __shared__ float weight_matrix[HEIGHT][WIDTH];
  int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  if (tx == 0) input_node[ty] = input_cuda[HEIGHT * by + ty + 1];
  __syncthreads();
  weight_matrix[ty][tx] = input_hidden_cuda[index] * input_node[ty];
  __syncthreads();
  for (int i = 1; i <= 4; i++) { // truth: collective
    int power_two = 1 << i;
    if (ty % power_two == 0) weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
    __syncthreads();
  }
  input_hidden_cuda[index] = weight_matrix[ty][tx];
  if (tx == 0) hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}

// kmeans style: nearest centre, an argmin over clusters.
__global__ void kmeansPoint(const float *features, int nfeatures, int npoints, int nclusters, int *membership,
                            const float *clusters) {
  int point_id = blockIdx.x * blockDim.x + threadIdx.x;
  if (point_id >= npoints) return;
  int index = -1;
  float min_dist = 3.4e38f;
  for (int i = 0; i < nclusters; i++) { // truth: carried
    float dist = 0;
    for (int l = 0; l < nfeatures; l++) { // truth: independent
      float diff = features[l * npoints + point_id] - clusters[i * nfeatures + l];
      dist += diff * diff;
    }
    if (dist < min_dist) {
      min_dist = dist;
      index = i;
    }
  }
  membership[point_id] = index;
}

// Rodinia bfs style: a benign race on the cost of an unvisited neighbour.
__global__ void bfs_kernel(const GraphNode *g_graph_nodes, const int *g_graph_edges, bool *g_graph_mask,
                           bool *g_updating_graph_mask, const bool *g_graph_visited, int *g_cost, int no_of_nodes) {
  int tid = blockIdx.x * 512 + threadIdx.x;
  if (tid < no_of_nodes && g_graph_mask[tid]) {
    g_graph_mask[tid] = false;
    for (int i = g_graph_nodes[tid].starting; i < (g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) { // truth: unproven
      int id = g_graph_edges[i];
      if (!g_graph_visited[id]) {
        g_cost[id] = g_cost[tid] + 1;
        g_updating_graph_mask[id] = true;
      }
    }
  }
}

// histogram64 style: per-thread sub-histograms in shared memory, no atomics.
__device__ inline void addByte(uchar *s_ThreadBase, uint data) { s_ThreadBase[(data >> 2) * 64] += 1; }
__global__ void histogram64Kernel(uint *d_PartialHistograms, const uint *d_Data, uint dataCount) {
  __shared__ uchar s_Hist[64 * BIN_COUNT];
  uchar *s_ThreadBase = s_Hist + threadIdx.x;
  for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) { // truth: carried
    uint data = d_Data[pos];
    addByte(s_ThreadBase, (data >> 2) & 0x3FU);
    addByte(s_ThreadBase, (data >> 10) & 0x3FU);
  }
  __syncthreads();
  if (threadIdx.x < BIN_COUNT) d_PartialHistograms[blockIdx.x * BIN_COUNT + threadIdx.x] = s_Hist[threadIdx.x * 64];
}

// reduction sample style: shared-memory tree, then the last warp by shuffles.
__global__ void reduce4(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) { // truth: collective
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    if (blockDim.x >= 64) mySum += sdata[tid + 32];
    for (int offset = 16; offset > 0; offset /= 2) mySum += __shfl_down_sync(0xffffffff, mySum, offset); // truth: collective
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// matrixMul sample style: tiles through shared memory, an unrolled inner product.
__global__ void MatrixMulCUDA(float *C, const float *A, const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) { // truth: collective
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx]; // truth: independent
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

// transpose sample style: a tile row per pass of the block's rows.
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x]; // truth: independent
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; // truth: independent
}

// scalarProd sample style: a block per vector, its threads over the elements.
__global__ void scalarProdGPU(float *d_C, const float *d_A, const float *d_B, int vectorN, int elementN) {
  __shared__ float accumResult[256];
  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) { // truth: collective
    int vectorBase = elementN * vec, vectorEnd = vectorBase + elementN;
    float sum = 0;
    for (int pos = vectorBase + threadIdx.x; pos < vectorEnd; pos += blockDim.x) sum += d_A[pos] * d_B[pos]; // truth: independent
    accumResult[threadIdx.x] = sum;
    for (int stride = 128; stride > 0; stride >>= 1) { // truth: collective
      __syncthreads();
      if (threadIdx.x < stride) accumResult[threadIdx.x] += accumResult[stride + threadIdx.x];
    }
    if (threadIdx.x == 0) d_C[vec] = accumResult[0];
  }
}

// nw style: anti-diagonal sweeps over a shared score tile.
__global__ void needle_cuda_shared(int *referrence, int *matrix_cuda, int cols, int penalty, int blk) {
  __shared__ int temp[17][17];
  __shared__ int ref[16][16];
  int tx = threadIdx.x, b_index_x = blk - 1 - blockIdx.x, b_index_y = blockIdx.x;
  int index = cols * 16 * b_index_y + 16 * b_index_x + tx + (cols + 1);
  for (int ty = 0; ty < 16; ty++) ref[ty][tx] = referrence[index + cols * ty]; // truth: independent
  __syncthreads();
  for (int m = 0; m < 16; m++) { // truth: collective
    if (tx <= m) {
      int t_index_x = tx + 1, t_index_y = m - tx + 1;
      temp[t_index_y][t_index_x] = max(temp[t_index_y - 1][t_index_x - 1] + ref[t_index_y - 1][t_index_x - 1],
                                       max(temp[t_index_y][t_index_x - 1] - penalty, temp[t_index_y - 1][t_index_x] - penalty));
    }
    __syncthreads();
  }
  for (int ty = 0; ty < 16; ty++) matrix_cuda[index + ty * cols] = temp[ty + 1][tx + 1]; // truth: independent
}

// A tree's descendants counted from its children's counts (Li/Wu/Becchi style).
__global__ void descendants(const int *first_child, const int *child_count, const int *desc, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int total = 0;
  int start = first_child[v], end = start + child_count[v];
  for (int c = start; c < end; ++c) total += desc[c] + 1; // truth: independent
  out[v] = total;
}
