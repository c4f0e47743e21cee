// Equivalence checker for GPU programs: runs an original and a rewritten
// program on the same inputs and compares their result files byte for byte.
//
//   nestor_equiv_check --workdir DIR --original EXE --rewritten EXE
//                      [--original-arg A]... [--rewritten-arg B]... [--expect-different]
//                      [--no-device-check] [-- COMMON_ARGS...]
//
// Each program runs as `EXE COMMON_ARGS... SIDE_ARGS... --out DIR/<side>.out`.
// Exit codes: 0 = outputs identical (or, with --expect-different, they differ:
// the test that proves the comparison can fail); 1 = the check failed; 2 = bad
// usage or a program could not be run; 77 = no CUDA device (ctest: skipped).
// --no-device-check skips the device test; it exists so that the checker
// itself can be tested on CPU-only programs.
#include <nestor/gpu_test.cuh>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct options {
  std::string workdir, original, rewritten;
  std::vector<std::string> original_args, rewritten_args, common_args;
  bool expect_different = false;
  bool device_check = true;
};

[[noreturn]] void usage_error(const std::string& why) {
  std::fprintf(stderr,
               "nestor_equiv_check: %s\nusage: nestor_equiv_check --workdir DIR --original EXE --rewritten EXE "
               "[--original-arg A]... [--rewritten-arg B]... [--expect-different] [--no-device-check] [-- COMMON_ARGS...]\n",
               why.c_str());
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      for (++i; i < argc; ++i) o.common_args.push_back(argv[i]);
      break;
    }
    if (a == "--expect-different") {
      o.expect_different = true;
      continue;
    }
    if (a == "--no-device-check") {
      o.device_check = false;
      continue;
    }
    if (i + 1 >= argc) usage_error("missing value after " + a);
    const std::string v = argv[++i];
    if (a == "--workdir") o.workdir = v;
    else if (a == "--original") o.original = v;
    else if (a == "--rewritten") o.rewritten = v;
    else if (a == "--original-arg") o.original_args.push_back(v);
    else if (a == "--rewritten-arg") o.rewritten_args.push_back(v);
    else usage_error("unknown option " + a);
  }
  if (o.workdir.empty() || o.original.empty() || o.rewritten.empty())
    usage_error("--workdir, --original and --rewritten are required");
  return o;
}

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream f(path, std::ios::binary);
  *ok = static_cast<bool>(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs exe with args, stdout+stderr to log; returns the exit status (or -1).
int run_program(const std::string& exe, const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);  // or the child would flush a copy of our buffered output
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    if (!f) _exit(126);
    dup2(fileno(stdout), fileno(stderr));
    execv(exe.c_str(), argv.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", exe.c_str(), std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool run_side(const char* side, const std::string& exe, const options& o, const std::vector<std::string>& side_args,
              std::string* out_path) {
  std::vector<std::string> args = o.common_args;
  args.insert(args.end(), side_args.begin(), side_args.end());
  *out_path = o.workdir + "/" + side + ".out";
  std::remove(out_path->c_str());
  args.push_back("--out");
  args.push_back(*out_path);
  const std::string log = o.workdir + "/" + side + ".log";
  std::printf("%s: %s", side, exe.c_str());
  for (size_t i = 0; i + 2 < args.size(); ++i) std::printf(" %s", args[i].c_str());
  std::printf("\n");
  const int rc = run_program(exe, args, log);
  bool ok = false;
  const std::string text = read_file(log, &ok);
  std::printf("%s", text.c_str());
  if (rc != 0) {
    std::printf("FAIL: %s program exited with status %d\n", side, rc);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  if (o.device_check) nestor::test::require_gpu_or_skip();
  std::string original_out, rewritten_out;
  if (!run_side("original", o.original, o, o.original_args, &original_out)) return 1;
  if (!run_side("rewritten", o.rewritten, o, o.rewritten_args, &rewritten_out)) return 1;
  bool ok_a = false, ok_b = false;
  const std::string a = read_file(original_out, &ok_a), b = read_file(rewritten_out, &ok_b);
  if (!ok_a || !ok_b || a.empty() || b.empty()) {
    std::printf("FAIL: a program wrote no result file (%s, %s)\n", original_out.c_str(), rewritten_out.c_str());
    return 1;
  }
  if (a == b) {
    const long lines = static_cast<long>(std::count(a.begin(), a.end(), '\n'));
    if (o.expect_different) {
      std::printf("FAIL: outputs are identical (%ld lines) but were expected to differ\n", lines);
      return 1;
    }
    std::printf("PASS: outputs identical (%ld lines)\n", lines);
    return 0;
  }
  // Report the first differing line, 1-based.
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  long line = 0;
  while (true) {
    ++line;
    const bool ga = static_cast<bool>(std::getline(sa, la)), gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga || !gb || la != lb) {
      std::printf("outputs differ first at line %ld: original '%s', rewritten '%s'\n", line,
                  ga ? la.c_str() : "<end>", gb ? lb.c_str() : "<end>");
      break;
    }
  }
  if (o.expect_different) {
    std::printf("PASS: the comparison detected the expected difference\n");
    return 0;
  }
  std::printf("FAIL: outputs differ\n");
  return 1;
}
