// bench/spmv's result check (spmv_reference.h): regenerates the bench matrix
// (the generator of tests/fixtures/loops, same seeds as the programs) and
// x, computes the float64 reference once, and checks every result file
// (loops_harness's NLR1 format: the first array, floats) row by row:
//   bench_spmv_check --graph KIND --rows R [--avg A] FILE...
// prints one line per file ("PASS|FAIL file worst=...", worst <= 1 passes);
// exit 0 when every file passes, 1 otherwise, 2 on bad arguments.
#include "spmv_reference.h"

#include <cstdint>
#include <string>

static bool readFloats(const std::string &path, std::vector<float> &out) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[4], tag = 0;
  uint64_t n = 0;
  bool ok = std::fread(magic, 1, 4, f) == 4 && std::string(magic, 4) == "NLR1" && std::fread(&tag, 1, 1, f) == 1 &&
            tag == 'f' && std::fread(&n, sizeof n, 1, f) == 1 && n < (1ull << 32);
  if (ok) {
    out.resize(n);
    ok = !n || std::fread(out.data(), sizeof(float), n, f) == n;
  }
  std::fclose(f);
  return ok;
}

int main(int argc, char **argv) {
  loops::Args args(argc, argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0) { ++i; continue; }
    files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s --graph KIND --rows R [--avg A] FILE...\n", argv[0]);
    return 2;
  }
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  const loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 7)));
  const spmv::Reference ref = spmv::reference(a, loops::random_floats(size_t(rows), 8));
  int status = 0;
  for (const std::string &f : files) {
    std::vector<float> y;
    if (!readFloats(f, y)) {
      std::printf("FAIL %s: unreadable result file\n", f.c_str());
      status = 1;
      continue;
    }
    spmv::Verdict v = spmv::check(ref, y, f.c_str());
    std::printf("%s %s worst=%.3g (of the tolerance %g * sum|a_rj x_j|)\n", v.bad ? "FAIL" : "PASS", f.c_str(), v.worst,
                spmv::kRowTolerance);
    if (v.bad) status = 1;
  }
  return status;
}
