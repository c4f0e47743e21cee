// nvcc -> clang flag translation and compile-database handling.
#include "nestor/CompileFlags.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace nestor;

static bool has(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CompileFlags, TranslatesNvccFlags) {
  std::vector<std::string> dropped;
  auto out = translateNvccFlags({"-arch=sm_80", "-rdc=true", "-Xcompiler", "-fopenmp,-Wall", "--expt-relaxed-constexpr",
                                 "--extended-lambda", "-ccbin", "g++-12", "-O3", "-I", "inc", "-DX=1", "-lineinfo",
                                 "--default-stream", "per-thread", "-Xptxas", "-v", "--use_fast_math", "-std=c++17",
                                 "-lcudadevrt"},
                                dropped);
  EXPECT_TRUE(has(out, "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(has(out, "-fgpu-rdc"));
  EXPECT_TRUE(has(out, "-fopenmp"));
  EXPECT_TRUE(has(out, "-Wall"));
  EXPECT_TRUE(has(out, "-O3"));
  EXPECT_TRUE(has(out, "-DX=1"));
  EXPECT_TRUE(has(out, "-fgpu-default-stream=per-thread"));
  EXPECT_TRUE(has(out, "-ffast-math"));
  EXPECT_TRUE(has(out, "-std=c++17"));
  EXPECT_FALSE(has(out, "g++-12"));
  // Reported: flags that change what the code means or how it compiles.
  EXPECT_TRUE(has(dropped, "--expt-relaxed-constexpr"));
  EXPECT_TRUE(has(dropped, "--extended-lambda"));
  EXPECT_TRUE(has(dropped, "-Xptxas -v"));
  // Silent: flags that only steer nvcc's driver, linker or line info.
  EXPECT_FALSE(has(dropped, "-ccbin g++-12"));
  EXPECT_FALSE(has(dropped, "-lineinfo"));
  EXPECT_FALSE(has(dropped, "-lcudadevrt"));
  EXPECT_EQ(dropped.size(), 3u);
}

TEST(CompileFlags, CMakeDriverFlagsAreTranslatedSilently) {
  // What CMake's CUDA rules put on every file: nothing to report.
  std::vector<std::string> dropped;
  auto out = translateNvccFlags({"-forward-unknown-to-host-compiler", "-DNDEBUG", "-O3", "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                                 "-Xcompiler=-fPIC", "-MD", "-MT", "k.o", "-MF", "k.o.d", "-x", "cu", "-c", "k.cu", "-o", "k.o",
                                 "-ccbin=/usr/bin/g++", "--threads=4", "-Wno-deprecated-gpu-targets"},
                                dropped);
  EXPECT_TRUE(dropped.empty()) << dropped.front();
  EXPECT_TRUE(has(out, "-DNDEBUG"));
  EXPECT_TRUE(has(out, "-O3"));
  // A flag that changes meaning is still reported beside them.
  translateNvccFlags({"-forward-unknown-to-host-compiler", "-G"}, dropped);
  EXPECT_EQ(dropped, std::vector<std::string>{"-G"});
}

TEST(CompileFlags, GencodeAndDeviceC) {
  std::vector<std::string> dropped;
  auto out = translateNvccFlags({"-gencode", "arch=compute_90,code=sm_90", "-gencode=arch=compute_80,code=[sm_80,compute_80]",
                                 "-dc"},
                                dropped);
  EXPECT_TRUE(has(out, "--cuda-gpu-arch=sm_90"));
  EXPECT_TRUE(has(out, "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(has(out, "-fgpu-rdc"));
}

TEST(CompileFlags, DefaultsWithoutDatabase) {
  FlagOptions o;
  o.userFlags = std::vector<std::string>{};
  auto cc = compileCommandFor("/tmp/nestor-nonexistent-dir/k.cu", o);
  ASSERT_TRUE(bool(cc)) << llvm::toString(cc.takeError());
  EXPECT_TRUE(has(cc->args, "-fgpu-rdc"));
  EXPECT_TRUE(has(cc->args, "--cuda-gpu-arch=sm_90"));
  EXPECT_TRUE(has(cc->args, "-Wno-unknown-cuda-version"));
  EXPECT_EQ(cc->args.back(), "/tmp/nestor-nonexistent-dir/k.cu");
}

namespace {
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { llvm::sys::fs::createUniqueDirectory("nestor-test", path); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const std::string &name, const std::string &contents) {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(p, ec);
    os << contents;
    return std::string(p);
  }
};
} // namespace

TEST(CompileFlags, ReadsNvccCommandFromDatabase) {
  TempDir d;
  std::string src = d.file("k.cu", "__global__ void k() {}\n");
  d.file("compile_commands.json", "[{\"directory\": \"" + std::string(d.path) +
                                      "\", \"command\": \"/usr/local/cuda/bin/nvcc -arch=sm_75 -Iinclude -rdc=true "
                                      "--expt-relaxed-constexpr -c k.cu -o k.o\", \"file\": \"k.cu\"}]");
  FlagOptions o;
  auto cc = compileCommandFor(src, o);
  ASSERT_TRUE(bool(cc)) << llvm::toString(cc.takeError());
  EXPECT_NE(cc->origin.find("compile_commands.json"), std::string::npos);
  EXPECT_TRUE(has(cc->args, "--cuda-gpu-arch=sm_75"));
  EXPECT_TRUE(has(cc->args, "-I" + std::string(d.path) + "/include"));
  EXPECT_TRUE(has(cc->dropped, "--expt-relaxed-constexpr"));
  EXPECT_FALSE(has(cc->args, "--cuda-gpu-arch=sm_90")); // the database's arch wins
}

TEST(CompileFlags, MalformedDatabaseIsAClearError) {
  TempDir d;
  std::string src = d.file("k.cu", "");
  d.file("compile_commands.json", "[{ this is not json");
  FlagOptions o;
  o.compileCommandsDir = std::string(d.path);
  auto cc = compileCommandFor(src, o);
  ASSERT_FALSE(bool(cc));
  std::string msg = llvm::toString(cc.takeError());
  EXPECT_NE(msg.find("malformed compile database"), std::string::npos) << msg;
}

TEST(CompileFlags, MissingDatabaseDirIsAClearError) {
  FlagOptions o;
  o.compileCommandsDir = "/tmp/nestor-no-such-dir";
  auto cc = compileCommandFor("/tmp/k.cu", o);
  ASSERT_FALSE(bool(cc));
  EXPECT_NE(llvm::toString(cc.takeError()).find("no compile_commands.json"), std::string::npos);
}

TEST(CompileFlags, ResponseFilesInTheDatabaseAreExpandedAndTranslated) {
  TempDir d;
  std::string src = d.file("k.cu", "__global__ void k() {}\n");
  d.file("flags.rsp", "-arch=sm_75 -Iinc \"-DNAME=a b\" --options-file nested.rsp\n");
  d.file("nested.rsp", "-rdc=true --expt-extended-lambda\n");
  d.file("compile_commands.json", "[{\"directory\": \"" + std::string(d.path) +
                                      "\", \"arguments\": [\"nvcc\", \"@flags.rsp\", \"-c\", \"k.cu\"], \"file\": \"k.cu\"}]");
  FlagOptions o;
  o.compileCommandsDir = std::string(d.path);
  auto cc = compileCommandFor(src, o);
  ASSERT_TRUE(bool(cc)) << llvm::toString(cc.takeError());
  EXPECT_TRUE(has(cc->args, "--cuda-gpu-arch=sm_75"));
  EXPECT_TRUE(has(cc->args, "-I" + std::string(d.path) + "/inc"));
  EXPECT_TRUE(has(cc->args, "-DNAME=a b"));
  EXPECT_TRUE(has(cc->dropped, "--expt-extended-lambda"));
  EXPECT_FALSE(has(cc->args, "@flags.rsp"));
}

TEST(CompileFlags, BadResponseFilesAreClearErrors) {
  TempDir d;
  std::string src = d.file("k.cu", "");
  d.file("self.rsp", "-DX @self.rsp\n");
  struct Case {
    const char *arg, *message;
  } cases[] = {
      {"@missing.rsp", "cannot read response file"},
      {"@self.rsp", "nested deeper than 8 levels"},  // a file that includes itself
      {"@/dev/zero", "not a regular file"},        // would never end
      {"@", "names no file"},
  };
  for (const Case &c : cases) {
    d.file("compile_commands.json", "[{\"directory\": \"" + std::string(d.path) + "\", \"arguments\": [\"nvcc\", \"" +
                                        c.arg + "\", \"k.cu\"], \"file\": \"k.cu\"}]");
    FlagOptions o;
    o.compileCommandsDir = std::string(d.path);
    auto cc = compileCommandFor(src, o);
    ASSERT_FALSE(bool(cc)) << c.arg;
    std::string msg = llvm::toString(cc.takeError());
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.arg << ": " << msg;
    EXPECT_NE(msg.find("compile database"), std::string::npos) << msg;
  }
  auto trailing = expandResponseFiles({"-O2", "--options-file"}, std::string(d.path));
  ASSERT_FALSE(bool(trailing));
  EXPECT_NE(llvm::toString(trailing.takeError()).find("needs a file name"), std::string::npos);
}
