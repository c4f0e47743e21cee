// Held-out case (bench/mapping/heldout16.tsv): every ride request's
// soonest pickup (the first filter of a ride-hailing dispatcher, one request
// per thread): the idle cars' positions and speeds are float arrays every
// thread reads in the same order, and the thread takes the FLOAT MIN over
// the cars of the Manhattan distance divided by the car's speed, over a
// PARAMETER-TRIP loop (c < ncars); 32, 256 and 1024 cars. Written for issue
// 22's sixteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef TE_BLOCK
#define TE_BLOCK 128
#endif

__global__ void soonest_pickup(const float *__restrict__ rx, const float *__restrict__ ry,
                               const float *__restrict__ carx, const float *__restrict__ cary,
                               const float *__restrict__ speed, float *__restrict__ eta, int nreq, int ncars) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nreq) return;
  const float x = rx[q], y = ry[q];
  float t = 3.0e38f;
  for (int c = 0; c < ncars; ++c) t = fminf(t, (fabsf(x - carx[c]) + fabsf(y - cary[c])) / speed[c]);
  eta[q] = t;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nreq = int(args.get("requests", 1 << 22)), ncars = int(args.get("cars", 32));
  if (nreq < 1 || ncars < 1) {
    std::fprintf(stderr, "taxi_eta: --requests and --cars must be at least 1\n");
    return 2;
  }
  // A 20 km square city; speeds 4 to 14 m/s.
  std::vector<float> rx = loops::random_floats(size_t(nreq), 1651u, 0.0f, 20000.0f),
                     ry = loops::random_floats(size_t(nreq), 1652u, 0.0f, 20000.0f),
                     carx = loops::random_floats(size_t(ncars), 1653u, 0.0f, 20000.0f),
                     cary = loops::random_floats(size_t(ncars), 1654u, 0.0f, 20000.0f),
                     speed = loops::random_floats(size_t(ncars), 1655u, 4.0f, 14.0f);
  float *drx = loops::to_device(rx), *dry = loops::to_device(ry), *dcx = loops::to_device(carx),
        *dcy = loops::to_device(cary), *dsp = loops::to_device(speed);
  float *deta = loops::device_zeros<float>(size_t(nreq));
  loops::timed(args, 12.0 * nreq, [&] {
    soonest_pickup<<<(nreq + TE_BLOCK - 1) / TE_BLOCK, TE_BLOCK>>>(drx, dry, dcx, dcy, dsp, deta, nreq, ncars);
  });
  std::vector<float> got = loops::from_device(deta, size_t(nreq));
  // A min of the same float quotients: exact in any order (one division,
  // no contraction); the serial reference checks every 7th request.
  size_t bad = 0;
  for (int q = 0; q < nreq; q += 7) {
    float t = 3.0e38f;
    for (int c = 0; c < ncars; ++c)
      t = std::min(t, (std::fabs(rx[size_t(q)] - carx[size_t(c)]) + std::fabs(ry[size_t(q)] - cary[size_t(c)])) /
                          speed[size_t(c)]);
    if (got[size_t(q)] != t) ++bad;
  }
  std::printf("taxi_eta: %d requests, %d cars%s\n", nreq, ncars, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
