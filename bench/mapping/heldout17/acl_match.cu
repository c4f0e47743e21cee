// Held-out case (bench/mapping/heldout17.tsv): the first rule of an access
// control list that every packet header matches (the linear first-match
// classification a software firewall or a router's ACL stage falls back to,
// one header per thread): the NRULE rules are small arrays every thread
// reads in the same order (an UNSIGNED source prefix and mask, an UNSIGNED
// SHORT destination-port range), and the thread keeps an UNSIGNED MIN of the
// rule number where the header matches and NRULE (the default rule) where it
// does not, over a MACRO-BOUNDED loop; 24 and 256 rules. Written for issue
// 22's seventeenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef AM_BLOCK
#define AM_BLOCK 256
#endif

#ifndef NRULE
#define NRULE 24
#endif

__global__ void first_matching_rule(const unsigned *__restrict__ src, const unsigned short *__restrict__ port,
                                    const unsigned *__restrict__ prefix, const unsigned *__restrict__ mask,
                                    const unsigned short *__restrict__ lo, const unsigned short *__restrict__ hi,
                                    unsigned *__restrict__ rule, int npkt) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npkt) return;
  const unsigned s = src[p], d = port[p];
  unsigned first = NRULE;
  for (int r = 0; r < NRULE; ++r)
    first = min(first, (s & mask[r]) == prefix[r] && d >= lo[r] && d <= hi[r] ? unsigned(r) : unsigned(NRULE));
  rule[p] = first;
}

static unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int npkt = int(args.get("packets", 1 << 24));
  if (npkt < 1) {
    std::fprintf(stderr, "acl_match: --packets must be at least 1\n");
    return 2;
  }
  // Sources from 16 networks (the top byte), the lower bytes hashed into 16
  // values each (and 256 for the last); ports hashed.
  // Rules: a /8, /16 or /24 prefix in one of those networks and a port range
  // of up to 8192 ports, so a header matches a given rule rarely and most
  // fall through to the default rule.
  std::vector<unsigned> src(static_cast<size_t>(npkt));
  std::vector<unsigned short> port(static_cast<size_t>(npkt));
  for (int p = 0; p < npkt; ++p) {
    const unsigned h = mix(unsigned(p) * 0x9E3779B9u + 1721u), g = mix(h + 1722u);
    src[size_t(p)] = (10u + (h >> 28)) << 24 | (h & 0x000F0F0Fu) | (g & 0xF0u);
    port[size_t(p)] = (unsigned short)(g >> 16);
  }
  std::vector<unsigned> prefix(NRULE), mask(NRULE);
  std::vector<unsigned short> lo(NRULE), hi(NRULE);
  for (int r = 0; r < NRULE; ++r) {
    const unsigned h = mix(unsigned(r) * 0x9E3779B9u + 1723u), g = mix(h + 1724u);
    const unsigned bits = 8u * (1u + h % 3u);
    mask[size_t(r)] = 0xFFFFFFFFu << (32u - bits);
    prefix[size_t(r)] = ((10u + (g >> 28)) << 24 | (g & 0x000F0F0Fu)) & mask[size_t(r)];
    lo[size_t(r)] = (unsigned short)((h >> 8) % 57344u);
    hi[size_t(r)] = (unsigned short)(lo[size_t(r)] + (g >> 4) % 8192u);
  }
  unsigned *dsrc = loops::to_device(src), *dprefix = loops::to_device(prefix), *dmask = loops::to_device(mask);
  unsigned short *dport = loops::to_device(port), *dlo = loops::to_device(lo), *dhi = loops::to_device(hi);
  unsigned *drule = loops::device_zeros<unsigned>(size_t(npkt));
  loops::timed(args, 10.0 * npkt, [&] {
    first_matching_rule<<<(npkt + AM_BLOCK - 1) / AM_BLOCK, AM_BLOCK>>>(dsrc, dport, dprefix, dmask, dlo, dhi, drule, npkt);
  });
  std::vector<unsigned> got = loops::from_device(drule, size_t(npkt));
  // A rule number: exact; the serial reference checks every 8th header.
  size_t bad = 0, fell = 0;
  for (int p = 0; p < npkt; p += 8) {
    unsigned first = NRULE;
    for (int r = 0; r < NRULE; ++r)
      if ((src[size_t(p)] & mask[size_t(r)]) == prefix[size_t(r)] && port[size_t(p)] >= lo[size_t(r)] &&
          port[size_t(p)] <= hi[size_t(r)]) {
        first = unsigned(r);
        break;
      }
    fell += first == NRULE;
    if (got[size_t(p)] != first) ++bad;
  }
  std::printf("acl_match: %d headers, %d rules, %zu of the checked to the default rule%s\n", npkt, NRULE, fell,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  std::vector<int> out(got.begin(), got.end());
  loops::ResultFile res(args);
  res.add(out);
  return bad ? 1 : 0;
}
