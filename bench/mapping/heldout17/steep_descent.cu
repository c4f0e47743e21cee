// Held-out case (bench/mapping/heldout17.tsv): every cell's steepest-descent
// neighbour (the pointer step of a D8/D26 flow-routing or a watershed-by-
// descent code on a 3-D grid, stored as a fixed-degree neighbour table as an
// unstructured-mesh code would, one cell per thread): cell v's NNB neighbour
// ids are stored together (ELL, row-major, v x NNB + j), the thread gathers
// each neighbour's non-negative FLOAT height and keeps the ARGMIN, folded as
// an UNSIGNED LONG LONG MIN of keys packing the height's bits above the
// neighbour's id (ties to the lower id), starting from the cell's own key,
// over a MACRO-BOUNDED loop; 26 neighbours (the Moore neighbourhood, the
// grid wrapping at its faces). Written for issue 22's seventeenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
#include "loops_harness.cuh"

#ifndef SD_BLOCK
#define SD_BLOCK 128
#endif

#ifndef NNB
#define NNB 26
#endif
static_assert(NNB >= 1 && NNB <= 26, "NNB: 1 to 26 Moore neighbours");

__global__ void steepest_neighbour(const int *__restrict__ nbr, const float *__restrict__ height,
                                   int *__restrict__ down, int ncell) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= ncell) return;
  unsigned long long best = (unsigned long long)__float_as_uint(height[v]) << 32 | unsigned(v);
  for (int j = 0; j < NNB; ++j) {
    const int u = nbr[size_t(v) * NNB + j];
    best = min(best, (unsigned long long)__float_as_uint(height[u]) << 32 | unsigned(u));
  }
  down[v] = int(unsigned(best));
}

static unsigned fbits(float f) {
  unsigned b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nx = int(args.get("nx", 128)), ny = int(args.get("ny", 128)), nz = int(args.get("nz", 256));
  if (nx < 1 || ny < 1 || nz < 1) {
    std::fprintf(stderr, "steep_descent: --nx, --ny and --nz must be at least 1\n");
    return 2;
  }
  const int ncell = nx * ny * nz;
  // The table lists the 26 Moore neighbours in a fixed order (the first NNB
  // of them), wrapping at the faces; heights 0 to 400 m, a gentle bowl plus
  // hashed roughness, so most cells drain to a neighbour and some are pits.
  std::vector<int> nbr(size_t(ncell) * NNB);
  std::vector<float> height(static_cast<size_t>(ncell));
  int off[26], k = 0;  // the interior cells' neighbours: v plus a fixed offset
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (dx != 0 || dy != 0 || dz != 0) off[k++] = (dz * ny + dy) * nx + dx;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int v = (z * ny + y) * nx + x;
        int *row = nbr.data() + size_t(v) * NNB;
        if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1) {
          for (int j = 0; j < NNB; ++j) row[j] = v + off[j];
        } else {
          int j = 0;
          for (int dz = -1; dz <= 1; ++dz) {
            const int uz = z + dz < 0 ? nz - 1 : (z + dz == nz ? 0 : z + dz);
            for (int dy = -1; dy <= 1; ++dy) {
              const int uy = y + dy < 0 ? ny - 1 : (y + dy == ny ? 0 : y + dy);
              for (int dx = -1; dx <= 1; ++dx) {
                const int ux = x + dx < 0 ? nx - 1 : (x + dx == nx ? 0 : x + dx);
                if ((dx != 0 || dy != 0 || dz != 0) && j < NNB) row[j++] = (uz * ny + uy) * nx + ux;
              }
            }
          }
        }
        unsigned h = unsigned(v) * 0x9E3779B9u + 1751u;
        h ^= h >> 15;
        h *= 0x2C1B3C6Du;
        h ^= h >> 12;
        const float cx = float(x - nx / 2), cy = float(y - ny / 2), cz = float(z - nz / 2);
        height[size_t(v)] = 800.0f * (cx * cx + cy * cy + cz * cz) / float(nx * nx + ny * ny + nz * nz) +
                            float(h % 20000u) * 0.01f;
      }
  int *dnbr = loops::to_device(nbr);
  float *dheight = loops::to_device(height);
  int *ddown = loops::device_zeros<int>(size_t(ncell));
  loops::timed(args, 4.0 * double(nbr.size()) + 8.0 * ncell, [&] {
    steepest_neighbour<<<(ncell + SD_BLOCK - 1) / SD_BLOCK, SD_BLOCK>>>(dnbr, dheight, ddown, ncell);
  });
  std::vector<int> got = loops::from_device(ddown, size_t(ncell));
  // A cell id: exact; the serial reference checks every 5th cell.
  size_t bad = 0, pits = 0;
  for (int v = 0; v < ncell; v += 5) {
    unsigned long long best = (unsigned long long)fbits(height[size_t(v)]) << 32 | unsigned(v);
    for (int j = 0; j < NNB; ++j) {
      const int u = nbr[size_t(v) * NNB + size_t(j)];
      best = std::min(best, (unsigned long long)fbits(height[size_t(u)]) << 32 | unsigned(u));
    }
    pits += int(unsigned(best)) == v;
    if (got[size_t(v)] != int(unsigned(best))) ++bad;
  }
  std::printf("steep_descent: %d cells, %d neighbours, %zu of the checked are pits%s\n", ncell, NNB, pits,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
