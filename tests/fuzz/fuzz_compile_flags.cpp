// libFuzzer target: compile databases, response files and the nvcc-to-clang
// flag translation (analyzers/src/CompileFlags.cpp).
//
// The input is compile_commands.json, optionally followed by a line "@@" and
// the text of a response file. Both are written to a temporary folder of this
// process (under /tmp); "$DIR" in the input stands for that folder, so that
// seeds can name k.cu and flags.rsp there. compileCommandFor must return a
// command or a one-line error, and a command must end with the file and
// start with the clang driver. The response file's words are also fed to
// translateNvccFlags directly, and used as the flags after `--`.
#include "nestor/CompileFlags.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string tempDir;

void require(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_compile_flags: %s\n", what);
  std::abort();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string substituteDir(std::string text) {
  for (size_t at = 0; (at = text.find("$DIR", at)) != std::string::npos; at += tempDir.size())
    text.replace(at, 4, tempDir);
  return text;
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!w.empty()) out.push_back(std::move(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

void checkCommand(llvm::Expected<nestor::CompileCommand> cc, const std::string &file) {
  if (!cc) {
    std::string message = llvm::toString(cc.takeError());
    require(!message.empty(), "an error without a message");
    return;
  }
  require(cc->args.size() >= 2, "a command without driver and file");
  require(cc->args.back() == file || llvm::sys::path::filename(cc->args.back()) == "k.cu",
          "a command that does not end with the file");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("/tmp/nestor-fuzz-flags", dir)) std::abort();
  tempDir = std::string(dir);
  writeFile(tempDir + "/k.cu", "__global__ void k() {}\n");
  std::atexit([] { llvm::sys::fs::remove_directories(tempDir); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input = substituteDir(std::string(reinterpret_cast<const char *>(data), size));
  std::string database = input, response = "-arch=sm_80 -DFROM_RSP=1";
  if (size_t sep = input.find("\n@@\n"); sep != std::string::npos) {
    database = input.substr(0, sep);
    response = input.substr(sep + 4);
  }
  writeFile(tempDir + "/compile_commands.json", database);
  writeFile(tempDir + "/flags.rsp", response);

  std::vector<std::string> dropped;
  (void)nestor::translateNvccFlags(words(response), dropped);

  const std::string file = tempDir + "/k.cu";
  nestor::FlagOptions opts;
  opts.cudaPath = "none"; // no toolkit probing: the same answer on every machine
  opts.compileCommandsDir = tempDir;
  checkCommand(nestor::compileCommandFor(file, opts), file);

  nestor::FlagOptions user;
  user.cudaPath = "none";
  user.userFlags = words(response);
  checkCommand(nestor::compileCommandFor(file, user), file);
  return 0;
}
