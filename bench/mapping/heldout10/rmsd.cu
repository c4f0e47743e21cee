// Held-out case (bench/mapping/heldout10.tsv): the root-mean-square deviation
// of every conformation of a trajectory or docking ensemble from a reference
// structure (the pre-aligned RMSD screen of clustering and docking codes,
// one conformation per thread): atoms are an array of float3-like structs,
// conformation c's atoms lie back to back, the reference sits in global
// memory, and the thread sums the squared distance of each atom to its
// reference atom. A float sum over a dense contiguous row of 12-byte structs
// (three fields read per entry) plus a broadcast struct read; 64 and 2048
// atoms. Written for issue 22's tenth held-out set, before any tuning on it;
// no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef RMSD_BLOCK
#define RMSD_BLOCK 128
#endif

struct Atom {
  float x, y, z;
};

__global__ void rmsd_to_reference(const Atom *__restrict__ confs, const Atom *__restrict__ ref,
                                  float *__restrict__ rmsd, int nconf, int natoms) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nconf) return;
  const Atom *a = confs + (size_t)c * natoms;
  float acc = 0.0f;
  for (int i = 0; i < natoms; ++i) {
    const float dx = a[i].x - ref[i].x, dy = a[i].y - ref[i].y, dz = a[i].z - ref[i].z;
    acc += dx * dx + dy * dy + dz * dz;
  }
  rmsd[c] = sqrtf(acc / float(natoms));
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nconf = int(args.get("confs", 262144)), natoms = int(args.get("atoms", 64));
  if (nconf < 1 || natoms < 1) {
    std::fprintf(stderr, "rmsd: --confs and --atoms must be at least 1\n");
    return 2;
  }
  // The reference: a helix of 1.5 A rise; a conformation moves every atom by
  // up to 2 A along each axis (32-bit hashes, one per coordinate triple).
  std::vector<Atom> ref(static_cast<size_t>(natoms));
  for (int i = 0; i < natoms; ++i)
    ref[size_t(i)] = {2.3f * std::cos(1.745f * i), 2.3f * std::sin(1.745f * i), 1.5f * float(i)};
  const size_t total = size_t(nconf) * natoms;
  std::vector<Atom> confs(total);
  for (size_t k = 0; k < total; ++k) {
    unsigned h = unsigned(k) * 0x9E3779B9u + 1051u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    const Atom &r = ref[k % size_t(natoms)];
    confs[k] = {r.x + float(h & 1023u) * (4.0f / 1024.0f) - 2.0f,
                r.y + float((h >> 10) & 1023u) * (4.0f / 1024.0f) - 2.0f,
                r.z + float(h >> 22) * (4.0f / 1024.0f) - 2.0f};
  }
  Atom *dconfs = loops::to_device(confs), *dref = loops::to_device(ref);
  float *drmsd = loops::device_zeros<float>(size_t(nconf));
  loops::timed(args, 12.0 * double(total) + 4.0 * nconf, [&] {
    rmsd_to_reference<<<(nconf + RMSD_BLOCK - 1) / RMSD_BLOCK, RMSD_BLOCK>>>(dconfs, dref, drmsd, nconf, natoms);
  });
  std::vector<float> got = loops::from_device(drmsd, size_t(nconf));
  // Every term is non-negative: float sums in any order stay within 1e-3
  // (relative) of the double reference.
  size_t bad = 0;
  for (int c = 0; c < nconf; ++c) {
    const Atom *a = confs.data() + size_t(c) * natoms;
    double acc = 0;
    for (int i = 0; i < natoms; ++i) {
      const double dx = a[i].x - ref[size_t(i)].x, dy = a[i].y - ref[size_t(i)].y, dz = a[i].z - ref[size_t(i)].z;
      acc += dx * dx + dy * dy + dz * dz;
    }
    const double want = std::sqrt(acc / natoms);
    if (std::fabs(got[size_t(c)] - want) > 1e-3 * std::max(1.0, want)) ++bad;
  }
  std::printf("rmsd: %d conformations of %d atoms%s\n", nconf, natoms,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
