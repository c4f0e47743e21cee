// ResourceUsage.h: ptxas's per-kernel figures through `nvcc --resource-usage`.
#include "nestor/ResourceUsage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace nestor {

namespace {
/// "void ns::tk<3>(float*)" -> "tk".
std::string kernelNameOf(const std::string &mangled) {
  std::string d = llvm::demangle(mangled);
  llvm::StringRef s(d);
  s = s.substr(0, s.find('('));
  // Drop trailing template arguments, then everything up to the last space
  // (the return type) and the last "::" (namespaces, classes).
  while (s.ends_with(">")) {
    int depth = 0;
    size_t i = s.size();
    while (i > 0) {
      char c = s[--i];
      if (c == '>') ++depth;
      else if (c == '<' && --depth == 0) break;
    }
    s = s.substr(0, i);
  }
  if (size_t sp = s.rfind(' '); sp != llvm::StringRef::npos) s = s.substr(sp + 1);
  if (size_t ns = s.rfind("::"); ns != llvm::StringRef::npos) s = s.substr(ns + 2);
  return s.str();
}

/// The number before `word` in `line` ("Used 32 registers" -> 32).
std::optional<uint64_t> numberBefore(llvm::StringRef line, llvm::StringRef word) {
  size_t at = line.find(word);
  if (at == llvm::StringRef::npos) return std::nullopt;
  llvm::StringRef head = line.substr(0, at).rtrim();
  size_t sp = head.find_last_of(" \t");
  uint64_t v;
  if (head.substr(sp == llvm::StringRef::npos ? 0 : sp + 1).getAsInteger(10, v)) return std::nullopt;
  return v;
}
} // namespace

std::map<std::string, KernelResources> parsePtxasReport(llvm::StringRef text) {
  std::map<std::string, KernelResources> out;
  std::string current;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (size_t at = line.find("Compiling entry function '"); at != llvm::StringRef::npos) {
      llvm::StringRef rest = line.substr(at + 26);
      current = kernelNameOf(rest.substr(0, rest.find('\'')).str());
      continue;
    }
    if (current.empty()) continue;
    KernelResources &r = out[current];
    if (auto v = numberBefore(line, "registers")) r.registers = unsigned(*v);
    if (auto v = numberBefore(line, "bytes smem")) r.sharedBytes = *v;
    if (auto v = numberBefore(line, "bytes stack frame")) r.stackBytes = *v;
  }
  return out;
}

std::optional<std::string> findNvcc() {
  if (auto p = llvm::sys::findProgramByName("nvcc")) return *p;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc")) return std::string("/usr/local/cuda/bin/nvcc");
  return std::nullopt;
}

llvm::Expected<std::map<std::string, KernelResources>> ptxasResources(const std::string &nvcc, const std::string &file,
                                                                      const std::vector<std::string> &compileFlags,
                                                                      bool relocatable, const std::string &arch) {
  std::vector<std::string> args{nvcc, "--resource-usage", "-arch=" + arch, "-std=c++17", "-c", "-o", "/dev/null"};
  if (relocatable) args.push_back("-rdc=true");
  for (size_t i = 0; i < compileFlags.size(); ++i) {
    llvm::StringRef f(compileFlags[i]);
    bool takesNext = (f == "-I" || f == "-D" || f == "-isystem") && i + 1 < compileFlags.size();
    if (f.starts_with("-I") || f.starts_with("-D") || f.starts_with("-isystem")) {
      args.push_back(f.str());
      if (takesNext) args.push_back(compileFlags[++i]);
    }
  }
  args.push_back(file);
  llvm::SmallString<128> log;
  if (auto ec = llvm::sys::fs::createTemporaryFile("nestor-ptxas", "txt", log))
    return llvm::createStringError(ec, "cannot create a temporary file for nvcc's output");
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log), llvm::StringRef(log)};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(nvcc, argv, std::nullopt, redirects, /*SecondsToWait=*/120, 0, &err);
  auto buf = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(log);
  std::string text = buf ? (*buf)->getBuffer().str() : "";
  if (rc != 0) {
    llvm::StringRef first = llvm::StringRef(text).trim();
    for (llvm::StringRef line : llvm::split(first, '\n'))
      if (line.contains("error")) {
        first = line;
        break;
      }
    first = first.substr(0, first.find('\n'));
    return llvm::createStringError("nvcc --resource-usage failed (%s): %s", rc < 0 ? err.c_str() : ("exit " + std::to_string(rc)).c_str(),
                                   first.str().c_str());
  }
  return parsePtxasReport(text);
}

} // namespace nestor
