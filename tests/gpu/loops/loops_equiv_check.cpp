// Runs an original fixture program and its rewritten golden on the same
// arguments (each with `--out FILE`) and compares the result files written by
// tests/fixtures/loops/loops_harness.cuh: int arrays exactly, float arrays
// within |a - b| <= 1e-3 * max(1, |a|, |b|) (parallel reductions and scans
// re-associate floating-point sums; see docs/rewrites-loops.md).
//   loops_equiv_check ORIGINAL REWRITTEN WORKDIR [ARGS...]
//   loops_equiv_check --compare ORIGINAL.out REWRITTEN.out   (files only; bench)
// Exit 0: equal; 1: different or a program failed; 77: no GPU (skipped).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {
struct Array {
  char tag;
  std::vector<uint32_t> bits;
};

bool readResult(const std::string &path, std::vector<Array> &out) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[4];
  if (std::fread(magic, 1, 4, f) != 4 || std::string(magic, 4) != "NLR1") { std::fclose(f); return false; }
  for (;;) {
    Array a;
    uint64_t n = 0;
    if (std::fread(&a.tag, 1, 1, f) != 1) break;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n > (1ull << 32)) { std::fclose(f); return false; }
    a.bits.resize(n);
    if (n && std::fread(a.bits.data(), 4, n, f) != n) { std::fclose(f); return false; }
    out.push_back(std::move(a));
  }
  std::fclose(f);
  return true;
}

int run(const std::string &exe, const std::vector<std::string> &args, const std::string &out) {
  std::string cmd = "'" + exe + "'";
  for (const auto &a : args) cmd += " '" + a + "'";
  cmd += " --out '" + out + "'";
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ORIGINAL REWRITTEN WORKDIR [ARGS...]\n", argv[0]);
    return 2;
  }
  std::string a, b;
  if (std::string(argv[1]) == "--compare") {
    a = argv[2];
    b = argv[3];
  } else {
    std::vector<std::string> args(argv + 4, argv + argc);
    const std::string dir = argv[3];
    a = dir + "/original.out";
    b = dir + "/rewritten.out";
    std::remove(a.c_str());
    std::remove(b.c_str());
    int ra = run(argv[1], args, a);
    if (ra == 77) return 77;
    int rb = run(argv[2], args, b);
    if (rb == 77) return 77;
    if (ra != 0 || rb != 0) {
      std::printf("FAIL: exit codes original=%d rewritten=%d\n", ra, rb);
      return 1;
    }
  }
  std::vector<Array> A, B;
  if (!readResult(a, A) || !readResult(b, B)) {
    std::printf("FAIL: unreadable result file\n");
    return 1;
  }
  if (A.size() != B.size() || A.empty()) {
    std::printf("FAIL: %zu vs %zu result arrays\n", A.size(), B.size());
    return 1;
  }
  size_t checked = 0;
  for (size_t k = 0; k < A.size(); ++k) {
    if (A[k].tag != B[k].tag || A[k].bits.size() != B[k].bits.size()) {
      std::printf("FAIL: array %zu has a different type or length\n", k);
      return 1;
    }
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < A[k].bits.size(); ++i) {
      bool same;
      if (A[k].tag == 'f') {
        float x, y;
        std::memcpy(&x, &A[k].bits[i], 4);
        std::memcpy(&y, &B[k].bits[i], 4);
        double tol = 1e-3 * std::fmax(1.0, std::fmax(std::fabs(x), std::fabs(y)));
        same = (std::isnan(x) && std::isnan(y)) || std::fabs(double(x) - y) <= tol;
        if (!same && bad < 5) std::printf("  array %zu [%zu]: %.9g vs %.9g\n", k, i, x, y);
        worst = std::fmax(worst, std::fabs(double(x) - y));
      } else {
        same = A[k].bits[i] == B[k].bits[i];
        if (!same && bad < 5) std::printf("  array %zu [%zu]: %d vs %d\n", k, i, int(A[k].bits[i]), int(B[k].bits[i]));
      }
      bad += !same;
      ++checked;
    }
    if (bad) {
      std::printf("FAIL: array %zu: %zu of %zu values differ\n", k, bad, A[k].bits.size());
      return 1;
    }
    std::printf("array %zu (%c, %zu values): equal, max |diff| %.3g\n", k, A[k].tag, A[k].bits.size(), worst);
  }
  std::printf("PASS: %zu values compared\n", checked);
  return 0;
}
