// peer-shape: dp-threshold-coarsen-aggregate-thesis (KLAP) BT, Bezier tessellation
//
// Bezier tessellation in the shape of KLAP's BT application (the CUDA
// samples' dynamic-parallelism Bezier tessellation, Table 4.1 of the thesis):
// one parent thread per quadratic Bezier line measures the line's curvature,
// derives how many points to tessellate it into (more for curvier lines, up
// to a maximum), and launches a child grid with one thread per point. Written
// here, in that style. Coordinates are integers (fixed point), so every
// variant computes the same points bit for bit; each line's points live at a
// fixed stride in one buffer (the sample allocates them in the parent, which
// KLAP's thesis notes as a cost of its own).
//
// --flat selects the hand-written non-nested version (KLAP's NoCDP): the
// parent thread computes its line's points in a loop.
// The program checks every point against a serial tessellation.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes klap_bt.cu -lcudadevrt
#include "peer_shapes.h"
#include <nestor/promote.cuh>

#define BT_MAX_POINTS 1024
#define BT_MIN_POINTS 4
#define BT_CHILD_BLOCK 32

struct BezierLine {
  int cx[3], cy[3];  // control points
};

// Point `k` of `count` on the line, as integers: the quadratic Bernstein
// form with t = k / (count - 1), evaluated exactly in 64-bit arithmetic.
__host__ __device__ inline long long bt_coord(const int *c, unsigned k, unsigned count) {
  long long m = count - 1, t = k, s = m - t;
  return (s * s * c[0] + 2 * s * t * c[1] + t * t * c[2]) / (m * m);
}

__host__ __device__ inline unsigned bt_point_count(const BezierLine &line) {
  long long mx = (line.cx[0] + line.cx[2]) / 2, my = (line.cy[0] + line.cy[2]) / 2;
  long long bend = (line.cx[1] > mx ? line.cx[1] - mx : mx - line.cx[1]) +
                   (line.cy[1] > my ? line.cy[1] - my : my - line.cy[1]);
  long long count = BT_MIN_POINTS + bend / 8;
  return count > BT_MAX_POINTS ? BT_MAX_POINTS : unsigned(count);
}

__global__ void bt_compute_points(const BezierLine *lines, unsigned line, unsigned count, long long *points) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    long long *out = points + 2ull * (line * BT_MAX_POINTS + k);
    out[0] = bt_coord(lines[line].cx, k, count);
    out[1] = bt_coord(lines[line].cy, k, count);
  }
}

// bt_compute_points with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by bt_compute_points_nestor_drain for delayed launches.
__device__ __forceinline__ void bt_compute_points_nestor_thread(const BezierLine *lines, unsigned line, unsigned count, long long *points, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    long long *out = points + 2ull * (line * BT_MAX_POINTS + k);
    out[0] = bt_coord(lines[line].cx, k, count);
    out[1] = bt_coord(lines[line].cy, k, count);
  }
}

// A delayed launch of bt_compute_points: its arguments and configuration.
struct bt_compute_points_nestor_launch {
  const BezierLine *lines;
  unsigned line;
  unsigned count;
  long long *points;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void bt_compute_points_nestor_drain(nestor::tmpl::launch_queue<bt_compute_points_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const bt_compute_points_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    bt_compute_points_nestor_thread(a.lines, a.line, a.count, a.points, t, b, bd, gd);
  });
}

__global__ void bt_tessellate(const BezierLine *lines, unsigned n, unsigned *counts, long long *points, nestor::tmpl::launch_queues<bt_compute_points_nestor_launch> nestor_lq = {}) {
  unsigned line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line < n) {
    unsigned count = bt_point_count(lines[line]);
    counts[line] = count;
    {
      // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
      // fewer than 64 threads runs in this thread; a larger one is delayed to bt_compute_points_nestor_drain,
      // which runs after this grid (CDP2 gives no earlier guarantee either).
      const dim3 nestor_grid((count + BT_CHILD_BLOCK - 1) / BT_CHILD_BLOCK), nestor_block(BT_CHILD_BLOCK);
      bt_compute_points_nestor_launch nestor_item;
      nestor_item.lines = lines;
      nestor_item.line = line;
      nestor_item.count = count;
      nestor_item.points = points;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
           (unsigned long long)(count) < 64ull) ||
          !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          bt_compute_points_nestor_thread(lines, line, count, points, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    } // peer-site: tessellate_launch
  }
}

// The non-nested version (--flat): the points in the line's thread.
__global__ void bt_tessellate_flat(const BezierLine *lines, unsigned n, unsigned *counts, long long *points) {
  unsigned line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line < n) {
    unsigned count = bt_point_count(lines[line]);
    counts[line] = count;
    for (unsigned k = 0; k < count; ++k) { // peer-site: flat_loop --flat
      long long *out = points + 2ull * (line * BT_MAX_POINTS + k);
      out[0] = bt_coord(lines[line].cx, k, count);
      out[1] = bt_coord(lines[line].cy, k, count);
    }
  }
}

int main(int argc, char **argv) {
  const bool flat = peer::take_switch(argc, argv, "--flat");
  graph::options opt;
  try {
    opt = graph::parse_options(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "klap_bt: %s\n%s  --vertices N: the number of lines; --degree D: their curvature scale\n"
                 "  --flat  the non-nested version\n", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = opt.vertices;
  // Lines with control points in [0, 8192); the middle point is pulled away
  // from the chord by up to 64 * degree, so the point counts vary from
  // BT_MIN_POINTS to BT_MAX_POINTS.
  graph::rng r(opt.seed);
  std::vector<BezierLine> lines(n);
  for (BezierLine &l : lines) {
    for (int k = 0; k < 3; ++k) {
      l.cx[k] = int(r.below(8192));
      l.cy[k] = int(r.below(8192));
    }
    const int pull = int(r.below(64 * (opt.degree + 1)));
    l.cx[1] = (l.cx[0] + l.cx[2]) / 2 + (r.below(2) ? pull : -pull);
  }
  PEER_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));
  BezierLine *d_lines = peer::to_device(lines);
  unsigned *d_counts = peer::to_device(std::vector<unsigned>(n, 0u));
  const size_t point_values = 2ull * n * BT_MAX_POINTS;
  long long *d_points = nullptr;
  PEER_CHECK(cudaMalloc(&d_points, point_values * sizeof(long long)));
  const double ms = peer::timed(
      opt.reps, [&] { PEER_CHECK(cudaMemset(d_points, 0, point_values * sizeof(long long))); },
      [&] {
        if (flat) bt_tessellate_flat<<<(n + 127) / 128, 128>>>(d_lines, n, d_counts, d_points);
        else nestor::tmpl::launch_promoted<bt_compute_points_nestor_launch>((n + 127) / 128, 128, false,
            [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<bt_compute_points_nestor_launch> nestor_lq) {
              bt_tessellate<<<nestor_g, nestor_b, 0>>>(d_lines, n, d_counts, d_points, nestor_lq);
            },
            [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<bt_compute_points_nestor_launch> nestor_q, bool nestor_block_mapped) {
              bt_compute_points_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
            });
      });
  const std::vector<unsigned> counts = peer::from_device(d_counts, n);
  const std::vector<long long> points = peer::from_device(d_points, point_values);
  // The result: every line's point count, then its points.
  std::vector<long long> result, expect;
  for (unsigned line = 0; line < n; ++line) {
    result.push_back(counts[line]);
    const unsigned count = bt_point_count(lines[line]);
    expect.push_back(count);
    for (unsigned k = 0; k < count; ++k) {
      result.push_back(points[2ull * (line * BT_MAX_POINTS + k)]);
      result.push_back(points[2ull * (line * BT_MAX_POINTS + k) + 1]);
      expect.push_back(bt_coord(lines[line].cx, k, count));
      expect.push_back(bt_coord(lines[line].cy, k, count));
    }
  }
  if (!peer::matches("klap_bt", result, expect)) return 1;
  graph::csr shape;  // for the RESULT line: lines as vertices, points as edges
  shape.vertices = n;
  shape.targets.resize(result.size() / 2);
  return peer::finish(flat ? "klap_bt_flat" : "klap_bt", opt, shape, ms, result);
}
