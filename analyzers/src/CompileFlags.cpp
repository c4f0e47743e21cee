#include "nestor/CompileFlags.h"
#include "nestor/ProjectIndex.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdio>
#include <set>
#include <unistd.h>

namespace nestor {

namespace {

// nvcc flags that take a separate value and mean nothing to analysis.
bool isDroppedWithValue(llvm::StringRef f) {
  return f == "-ccbin" || f == "--compiler-bindir" || f == "-Xptxas" || f == "-Xlinker" ||
         f == "-Xnvlink" || f == "-Xfatbin" || f == "-maxrregcount" || f == "--maxrregcount" ||
         f == "-o" || f == "--output-file" || f == "-t" || f == "--threads" || f == "-cudart" ||
         f == "--cudart" || f == "-MF" || f == "-MT" || f == "-MQ" || f == "--keep-dir" ||
         f == "-odir" || f == "--split-compile" || f == "-ptxas-options" || f == "--nvlink-options";
}

// nvcc flags (alone, or as --flag=value) that clang does not take.
bool isDroppedAlone(llvm::StringRef f) {
  static const char *prefixes[] = {
      "--expt-relaxed-constexpr", "--expt-extended-lambda", "--extended-lambda", "-lineinfo",
      "--generate-line-info", "-G", "--device-debug", "-ccbin=", "--compiler-bindir=",
      "--ptxas-options=", "-Xptxas=", "--maxrregcount=", "-maxrregcount=", "-cudart=",
      "--cudart=", "--keep", "-keep", "-lcudadevrt", "-lcudart", "-dlink", "--device-link",
      "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", "-MD", "-MMD",
      "--resource-usage", "-res-usage", "--source-in-ptx", "--threads=", "-t=", "--split-compile=",
      "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
      "--display-error-number", "--diag-suppress=", "-diag-suppress=", "-Werror=cross-execution-space-call",
      "--relocatable-device-code=false", "-rdc=false", "--keep-dir=", "-c", "-E", "-M", "-MP",
  };
  for (const char *p : prefixes) {
    llvm::StringRef ps(p);
    if (ps.ends_with("=") ? f.starts_with(ps) : f == ps) return true;
  }
  return f.starts_with("-l") || f.starts_with("-L") || f.starts_with("-o") ||
         f.starts_with("--gpu-code=") || f.starts_with("-code=");
}

// Dropped flags that only steer nvcc's own driver, linker or diagnostics and
// change nothing about the code the analysis reads (CMake's CUDA commands
// carry -forward-unknown-to-host-compiler on every file): dropped silently.
// Flags that change what the code means or how it compiles
// (--expt-relaxed-constexpr, --extended-lambda, -G, -Xptxas, maxrregcount)
// are still reported.
bool isDriverOnly(llvm::StringRef f) {
  static const char *exact[] = {
      "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
      "-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", "-ccbin", "--compiler-bindir",
      "-Xlinker", "-Xnvlink", "-Xfatbin", "--nvlink-options", "-t", "--threads", "--split-compile", "-odir",
      "--keep", "-keep", "--keep-dir", "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets",
      "--display-error-number", "--resource-usage", "-res-usage", "--source-in-ptx", "-lineinfo",
      "--generate-line-info", "-cudart", "--cudart", "-dlink", "--device-link"};
  static const char *prefixes[] = {"-ccbin=", "--compiler-bindir=", "--threads=", "-t=", "--split-compile=",
                                   "--keep-dir=", "-cudart=", "--cudart=", "--diag-suppress=", "-diag-suppress=",
                                   "-Werror=cross-execution-space-call", "-l", "-L"};
  for (const char *e : exact)
    if (f == e) return true;
  for (const char *p : prefixes)
    if (f.starts_with(p)) return true;
  return false;
}

std::string archToClang(llvm::StringRef arch) {
  // compute_90 / sm_90 / sm_90a -> sm_90(a)
  arch = arch.trim();
  if (arch.consume_front("compute_")) return "--cuda-gpu-arch=sm_" + arch.str();
  if (arch.starts_with("sm_")) return "--cuda-gpu-arch=" + arch.str();
  if (arch == "native" || arch == "all" || arch == "all-major") return "";
  return "--cuda-gpu-arch=" + arch.str();
}

void addArchFromGencode(llvm::StringRef value, std::vector<std::string> &out) {
  // arch=compute_90,code=sm_90  or  arch=compute_90,code=[sm_90,compute_90]
  llvm::SmallVector<llvm::StringRef, 4> parts;
  value.split(parts, ',');
  for (llvm::StringRef p : parts) {
    if (p.consume_front("arch=")) {
      std::string a = archToClang(p);
      if (!a.empty()) out.push_back(a);
      return;
    }
  }
}

} // namespace

std::vector<std::string> translateNvccFlags(const std::vector<std::string> &in,
                                            std::vector<std::string> &dropped) {
  std::vector<std::string> out;
  for (size_t i = 0; i < in.size(); ++i) {
    llvm::StringRef f(in[i]);
    auto value = [&](llvm::StringRef eqForm) -> std::optional<std::string> {
      if (f.starts_with(eqForm)) return f.drop_front(eqForm.size()).str();
      if (f == eqForm.drop_back() && i + 1 < in.size()) return in[++i];
      return std::nullopt;
    };
    if (auto a = value("-arch=")) { auto s = archToClang(*a); if (!s.empty()) out.push_back(s); continue; }
    if (auto a = value("--gpu-architecture=")) { auto s = archToClang(*a); if (!s.empty()) out.push_back(s); continue; }
    if (auto g = value("-gencode=")) { addArchFromGencode(*g, out); continue; }
    if (auto g = value("--generate-code=")) { addArchFromGencode(*g, out); continue; }
    if (f == "-rdc=true" || f == "--relocatable-device-code=true" || f == "-dc" ||
        f == "--device-c" || f == "-rdc") {
      out.push_back("-fgpu-rdc");
      continue;
    }
    if (auto x = value("-Xcompiler=")) {
      llvm::SmallVector<llvm::StringRef, 4> parts;
      llvm::StringRef(*x).split(parts, ',', -1, false);
      for (auto p : parts) out.push_back(p.trim().str());
      continue;
    }
    if (auto x = value("--compiler-options=")) {
      llvm::SmallVector<llvm::StringRef, 4> parts;
      llvm::StringRef(*x).split(parts, ',', -1, false);
      for (auto p : parts) out.push_back(p.trim().str());
      continue;
    }
    if (auto s = value("--default-stream=")) {
      if (*s == "per-thread") out.push_back("-fgpu-default-stream=per-thread");
      else if (*s == "legacy") out.push_back("-fgpu-default-stream=legacy");
      continue;
    }
    if (f == "--use_fast_math" || f == "-use_fast_math") { out.push_back("-ffast-math"); continue; }
    if (auto s = value("--std=")) { out.push_back("-std=" + *s); continue; }
    if (f == "-std" && i + 1 < in.size()) { out.push_back("-std=" + in[++i]); continue; }
    if (auto s = value("--include-path=")) { out.push_back("-I" + *s); continue; }
    if (auto s = value("--define-macro=")) { out.push_back("-D" + *s); continue; }
    if (f == "-x" && i + 1 < in.size()) { ++i; continue; } // we always parse as CUDA
    if (f == "-I" || f == "-D" || f == "-U" || f == "-isystem" || f == "-include" || f == "-iquote") {
      out.push_back(in[i]);
      if (i + 1 < in.size()) out.push_back(in[++i]);
      continue;
    }
    // Output and dependency-file flags mean nothing to analysis and nothing
    // is lost without them: drop them silently. The rest are reported.
    bool outputFlag = f == "-o" || f == "--output-file" || f == "-MF" || f == "-MT" || f == "-MQ";
    if (isDroppedWithValue(f)) {
      if (!outputFlag && !isDriverOnly(f)) dropped.push_back(in[i] + (i + 1 < in.size() ? " " + in[i + 1] : ""));
      ++i;
      continue;
    }
    if (isDroppedAlone(f)) {
      bool silent = f == "-c" || f == "-E" || f == "-M" || f == "-MD" || f == "-MMD" || f == "-MP" ||
                    (f.starts_with("-o") && f.size() > 2);
      if (!silent && !isDriverOnly(f)) dropped.push_back(in[i]);
      continue;
    }
    out.push_back(in[i]);
  }
  return out;
}

llvm::Expected<std::vector<std::string>> expandResponseFiles(const std::vector<std::string> &in,
                                                             const std::string &directory, unsigned depth) {
  // A file that names itself (directly or not) must end in an error, not in
  // unbounded recursion; real build systems nest one level at most.
  constexpr unsigned kMaxDepth = 8;
  constexpr uint64_t kMaxBytes = 4u << 20;
  std::vector<std::string> out;
  for (size_t i = 0; i < in.size(); ++i) {
    llvm::StringRef a(in[i]);
    std::optional<std::string> name;
    if (a.starts_with("@")) name = a.drop_front().str();
    else if (a.consume_front("--options-file=")) name = a.str();
    else if (a == "--options-file" || a == "-optf") {
      if (i + 1 == in.size()) return llvm::createStringError("%s needs a file name", in[i].c_str());
      name = in[++i];
    }
    if (!name) { out.push_back(in[i]); continue; }
    if (name->empty()) return llvm::createStringError("response file argument '%s' names no file", in[i].c_str());
    if (depth >= kMaxDepth)
      return llvm::createStringError("response files nested deeper than %u levels at '%s' (does one include itself?)",
                                     kMaxDepth, name->c_str());
    llvm::SmallString<256> path(*name);
    if (!llvm::sys::path::is_absolute(path) && !directory.empty()) {
      path = directory;
      llvm::sys::path::append(path, *name);
    }
    // Only a regular file: @/dev/stdin or a FIFO would block, @/dev/zero never end.
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(path, st) && st.type() != llvm::sys::fs::file_type::regular_file)
      return llvm::createStringError("response file '%s' is not a regular file", path.c_str());
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer)
      return llvm::createStringError("cannot read response file '%s': %s", path.c_str(),
                                     buffer.getError().message().c_str());
    if ((*buffer)->getBufferSize() > kMaxBytes)
      return llvm::createStringError("response file '%s' is larger than 4 MiB", path.c_str());
    llvm::BumpPtrAllocator alloc;
    llvm::StringSaver saver(alloc);
    llvm::SmallVector<const char *, 32> words;
    llvm::cl::TokenizeGNUCommandLine((*buffer)->getBuffer(), saver, words);
    std::vector<std::string> inner;
    for (const char *w : words)
      if (w) inner.emplace_back(w);
    auto expanded = expandResponseFiles(inner, directory, depth + 1);
    if (!expanded) return expanded.takeError();
    out.insert(out.end(), expanded->begin(), expanded->end());
  }
  return out;
}

std::string findCudaPath(const std::string &preferred) {
  // "none" (or NESTOR_CUDA_PATH=none) analyses without a toolkit, as on a
  // machine that has none.
  auto forced = llvm::sys::Process::GetEnv("NESTOR_CUDA_PATH");
  if (preferred == "none" || (preferred.empty() && forced && *forced == "none")) return "";
  if (preferred.empty() && forced && !forced->empty()) return *forced;
  auto ok = [](const std::string &dir) {
    return !dir.empty() && llvm::sys::fs::exists(dir + "/include/cuda_runtime.h");
  };
  if (ok(preferred)) return preferred;
  if (auto env = llvm::sys::Process::GetEnv("CUDA_PATH"); env && ok(*env)) return *env;
  if (auto env = llvm::sys::Process::GetEnv("CUDA_HOME"); env && ok(*env)) return *env;
  if (ok("/usr/local/cuda")) return "/usr/local/cuda";
  return "";
}

namespace {

// Finishes a command: translated flags + what every Nestor parse needs.
CompileCommand finish(const std::string &file, std::vector<std::string> flags,
                      std::vector<std::string> dropped, std::string origin, std::string dir,
                      const FlagOptions &opts) {
  CompileCommand cc;
  cc.origin = std::move(origin);
  cc.directory = std::move(dir);
  cc.dropped = std::move(dropped);
  cc.args.push_back(NESTOR_CLANG_DRIVER);
  cc.args.push_back("-x");
  cc.args.push_back("cuda");
  // One parse, one job (what a tool can keep an AST of): the host side, where
  // clang parses __device__ and __global__ bodies too; the device side when
  // the file tests __CUDA_ARCH__ (Frontend.cpp), so its kernels are read as
  // the GPU compiles them.
  cc.args.push_back(opts.deviceSide ? "--cuda-device-only" : "--cuda-host-only");
  cc.args.push_back("-fsyntax-only");
  cc.args.push_back("-resource-dir=" NESTOR_CLANG_RESOURCE_DIR);
  bool hasArch = false, hasRdc = false, hasCudaPath = false;
  for (const auto &f : flags) {
    llvm::StringRef s(f);
    hasArch |= s.starts_with("--cuda-gpu-arch=") || s.starts_with("--offload-arch=");
    hasRdc |= s == "-fgpu-rdc";
    hasCudaPath |= s.starts_with("--cuda-path=");
  }
  std::string cuda = findCudaPath(opts.cudaPath);
  if (!hasCudaPath) {
    if (cuda.empty()) {
      cc.fallbackCudaHeaders = true;
      cc.args.push_back("-nocudainc");
      cc.args.push_back("-nocudalib");
      cc.args.push_back("-include");
      cc.args.push_back(fallbackCudaHeaderPath());
    } else {
      cc.args.push_back("--cuda-path=" + cuda);
      // CUDA 13 keeps libcu++/CUB/Thrust in include/cccl, which nvcc adds
      // itself and clang's driver does not (cooperative_groups needs it).
      if (llvm::sys::fs::is_directory(cuda + "/include/cccl")) {
        cc.args.push_back("-isystem");
        cc.args.push_back(cuda + "/include/cccl");
      }
    }
  }
  if (!hasArch) cc.args.push_back("--cuda-gpu-arch=" + opts.gpuArch);
  // Without relocatable device code every device-side <<<>>> is an error.
  if (!hasRdc) cc.args.push_back("-fgpu-rdc");
  // Rewritten code includes <nestor/...cuh>: analysing it again (rewrite
  // chains, the editor after a rewrite) needs the runtime headers.
  if (std::string runtime = runtimeIncludeDir(); llvm::sys::fs::is_directory(runtime)) {
    cc.args.push_back("-isystem");
    cc.args.push_back(runtime);
  }
  cc.args.push_back("-Wno-unknown-cuda-version");
  cc.args.push_back("-ferror-limit=0");
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef s(flags[i]);
    std::string dir;
    for (llvm::StringRef opt : {"-I", "-iquote", "-isystem"}) {
      if (s == opt && i + 1 < flags.size()) dir = flags[i + 1];
      else if (s.starts_with(opt) && s.size() > opt.size() && (opt == "-I" || s[opt.size()] != '=')) dir = s.drop_front(opt.size()).str();
      if (!dir.empty()) break;
    }
    if (dir.empty()) continue;
    llvm::SmallString<256> p(dir);
    if (!llvm::sys::path::is_absolute(p) && !cc.directory.empty()) {
      p = cc.directory;
      llvm::sys::path::append(p, dir);
    }
    cc.includeDirs.push_back(std::string(p));
  }
  for (auto &f : flags) cc.args.push_back(std::move(f));
  cc.args.push_back(file);
  return cc;
}

std::optional<std::string> findDatabaseDirUpwards(const std::string &file) {
  llvm::SmallString<256> dir(file);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_filename(dir);
  while (!dir.empty()) {
    for (const char *sub : {"", "build"}) {
      llvm::SmallString<256> candidate(dir);
      if (*sub) llvm::sys::path::append(candidate, sub);
      llvm::SmallString<256> db(candidate);
      llvm::sys::path::append(db, "compile_commands.json");
      if (llvm::sys::fs::exists(db)) return std::string(candidate);
    }
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir) break;
    dir = parent;
  }
  return std::nullopt;
}

// When `includer` #includes `file` directly after other code, that code
// (its text up to the #include line) in a file of its own, for -include: the
// file is then parsed with what the includer declared before it, as in the
// build. Written once per content under the temporary directory; nullopt
// when the #include is not found or nothing but blank lines precedes it.
std::optional<std::string> includerPrefix(const std::string &includer, const std::string &file,
                                          const std::vector<std::string> &flags) {
  auto buf = llvm::MemoryBuffer::getFile(includer, /*IsText=*/true);
  if (!buf) return std::nullopt;
  std::vector<std::string> dirs{llvm::sys::path::parent_path(includer).str()};
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef f(flags[i]);
    if ((f == "-I" || f == "-iquote" || f == "-isystem") && i + 1 < flags.size()) dirs.push_back(flags[i + 1]);
    else if (f.starts_with("-I") && f.size() > 2) dirs.push_back(f.drop_front(2).str());
  }
  auto sameFile = [](llvm::StringRef a, llvm::StringRef b) {
    llvm::sys::fs::UniqueID ua, ub;
    return !llvm::sys::fs::getUniqueID(a, ua) && !llvm::sys::fs::getUniqueID(b, ub) && ua == ub;
  };
  llvm::StringRef text = (*buf)->getBuffer();
  size_t lineStart = 0;
  while (lineStart < text.size()) {
    size_t nl = text.find('\n', lineStart);
    llvm::StringRef line = text.slice(lineStart, nl == llvm::StringRef::npos ? text.size() : nl).ltrim();
    if (line.consume_front("#") && (line = line.ltrim()).consume_front("include")) {
      line = line.ltrim();
      char close = line.starts_with("\"") ? '"' : line.starts_with("<") ? '>' : 0;
      size_t end = close ? line.find(close, 1) : llvm::StringRef::npos;
      if (end != llvm::StringRef::npos) {
        llvm::StringRef name = line.slice(1, end);
        for (const std::string &d : dirs) {
          llvm::SmallString<256> p(d);
          llvm::sys::path::append(p, name);
          if (!sameFile(p, file)) continue;
          llvm::StringRef prefix = text.take_front(lineStart);
          if (prefix.trim().empty()) return std::nullopt;
          llvm::SmallString<128> dir;
          llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
          llvm::sys::path::append(dir, "nestor-" + std::to_string(::getuid()), "includer-prefix");
          if (llvm::sys::fs::create_directories(dir)) return std::nullopt;
          char hash[17];
          std::snprintf(hash, sizeof hash, "%016llx",
                        (unsigned long long)llvm::xxh3_64bits(includer + "\n" + prefix.str()));
          llvm::SmallString<256> out(dir);
          llvm::sys::path::append(out, llvm::sys::path::stem(includer) + "-" + hash + ".h");
          if (llvm::sys::fs::exists(out)) return std::string(out);
          // A unique name, then rename: parallel parses may write it at once.
          llvm::SmallString<256> tmp;
          int fd;
          if (llvm::sys::fs::createUniqueFile(out + ".%%%%%%", fd, tmp)) return std::nullopt;
          {
            llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
            os << "// The text of " << includer << " before its #include of " << file
               << " (Nestor: the includer's context).\n"
               << prefix;
          }
          if (llvm::sys::fs::rename(tmp, out)) {
            llvm::sys::fs::remove(tmp);
            return std::nullopt;
          }
          return std::string(out);
        }
      }
    }
    if (nl == llvm::StringRef::npos) break;
    lineStart = nl + 1;
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<CompileCommand> compileCommandFor(const std::string &file, const FlagOptions &opts) {
  std::optional<std::string> dbDir = opts.compileCommandsDir;
  bool explicitDb = dbDir.has_value();
  if (!dbDir && !opts.userFlags) dbDir = findDatabaseDirUpwards(file);

  if (dbDir) {
    std::string error;
    llvm::SmallString<256> dbFile(*dbDir);
    llvm::sys::path::append(dbFile, "compile_commands.json");
    if (!llvm::sys::fs::exists(dbFile)) {
      if (explicitDb)
        return llvm::createStringError("no compile_commands.json in '%s'", dbDir->c_str());
    } else {
      auto db = clang::tooling::JSONCompilationDatabase::loadFromFile(
          dbFile, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      if (!db)
        return llvm::createStringError("malformed compile database %s: %s", dbFile.c_str(),
                                       error.c_str());
      llvm::SmallString<256> abs(file);
      llvm::sys::fs::make_absolute(abs);
      auto cmds = db->getCompileCommands(abs);
      // A header (or a .cu a wrapper includes) has no entry of its own: the
      // command of a database file that includes it, as clangd does.
      std::string includer;
      std::string foundIncluder = opts.includer;
      // No includer given: the database file that includes it (ProjectIndex.h),
      // so analyze, rewrite and the language server use it as lint does.
      if (cmds.empty() && foundIncluder.empty()) foundIncluder = includerInDatabase(*dbDir, std::string(abs), opts);
      if (cmds.empty() && !foundIncluder.empty()) {
        llvm::SmallString<256> inc(foundIncluder);
        llvm::sys::fs::make_absolute(inc);
        cmds = db->getCompileCommands(inc);
        if (!cmds.empty()) includer = std::string(inc);
      }
      if (!cmds.empty()) {
        const auto &cmd = cmds.front();
        llvm::StringRef ownName = includer.empty() ? llvm::StringRef(file) : llvm::StringRef(includer);
        auto words = expandResponseFiles(
            std::vector<std::string>(cmd.CommandLine.begin() + std::min<size_t>(1, cmd.CommandLine.size()),
                                     cmd.CommandLine.end()),
            cmd.Directory);
        if (!words)
          return llvm::createStringError("compile database %s, command of %s: %s", dbFile.c_str(),
                                         includer.empty() ? abs.c_str() : includer.c_str(),
                                         llvm::toString(words.takeError()).c_str());
        std::vector<std::string> raw;
        // Drop every mention of the input file (the driver is gone already).
        for (const std::string &w : *words) {
          llvm::StringRef a(w);
          if (a == cmd.Filename || llvm::sys::path::filename(a) == llvm::sys::path::filename(ownName)) continue;
          raw.push_back(w);
        }
        std::vector<std::string> dropped;
        std::vector<std::string> flags = translateNvccFlags(raw, dropped);
        // Relative include paths are relative to the command's directory.
        for (auto &f : flags) {
          llvm::StringRef s(f);
          if (s.starts_with("-I") && s.size() > 2 && !llvm::sys::path::is_absolute(s.drop_front(2))) {
            llvm::SmallString<256> p(cmd.Directory);
            llvm::sys::path::append(p, s.drop_front(2));
            f = "-I" + std::string(p);
          }
        }
        std::string origin = "compile_commands.json in " + *dbDir;
        if (!includer.empty()) {
          origin += " (the command of " + includer + ", which includes it)";
          if (auto prefix = includerPrefix(includer, std::string(abs), flags)) {
            // What the includer declares before its #include of this file
            // (Rodinia's kernels use the wrapper's types and macros).
            flags.push_back("-iquote");
            flags.push_back(llvm::sys::path::parent_path(includer).str());
            flags.push_back("-include");
            flags.push_back(*prefix);
          }
        }
        CompileCommand cc = finish(std::string(abs), std::move(flags), std::move(dropped), origin, cmd.Directory, opts);
        cc.includer = includer;
        return cc;
      }
      // The file is not in the database: flags after `--` or defaults, like clangd.
    }
  }
  std::vector<std::string> dropped;
  if (opts.userFlags) {
    auto words = expandResponseFiles(*opts.userFlags, "");
    if (!words) return llvm::createStringError("flags after --: %s", llvm::toString(words.takeError()).c_str());
    auto flags = translateNvccFlags(*words, dropped);
    return finish(file, std::move(flags), std::move(dropped), "flags after --", "", opts);
  }
  return finish(file, {}, {}, "default flags", "", opts);
}

std::optional<std::string> databaseDirFor(const std::string &file, const FlagOptions &opts) {
  if (opts.compileCommandsDir) return opts.compileCommandsDir;
  if (opts.userFlags) return std::nullopt;
  return findDatabaseDirUpwards(file);
}

llvm::Expected<std::vector<std::string>> databaseFiles(const std::string &dir) {
  llvm::SmallString<256> dbFile(dir);
  llvm::sys::path::append(dbFile, "compile_commands.json");
  if (!llvm::sys::fs::exists(dbFile)) return llvm::createStringError("no compile_commands.json in '%s'", dir.c_str());
  std::string error;
  auto db = clang::tooling::JSONCompilationDatabase::loadFromFile(dbFile, error,
                                                                  clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!db) return llvm::createStringError("malformed compile database %s: %s", dbFile.c_str(), error.c_str());
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto &cmd : db->getAllCompileCommands()) {
    llvm::SmallString<256> p(cmd.Filename);
    if (!llvm::sys::path::is_absolute(p)) {
      p = cmd.Directory;
      llvm::sys::path::append(p, cmd.Filename);
    }
    llvm::sys::path::remove_dots(p, true);
    if (seen.insert(std::string(p)).second) out.push_back(std::string(p));
  }
  return out;
}

namespace {
// BIN/../SUB when it holds `probe`, for an installed nestor.
std::optional<std::string> besideExecutable(llvm::StringRef sub, llvm::StringRef probe) {
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (exe.empty()) return std::nullopt;
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, sub);
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, probe);
  if (llvm::sys::fs::exists(p)) return std::string(dir);
  return std::nullopt;
}
} // namespace

std::string runtimeIncludeDir() {
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_RUNTIME_DIR"); env && !env->empty()) return *env;
  if (auto dir = besideExecutable(NESTOR_INSTALL_INCLUDE_SUBDIR, "nestor/dp.cuh")) return *dir;
  return NESTOR_RUNTIME_INCLUDE_DIR;
}

std::string docsDir() {
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_DOCS_DIR"); env && !env->empty()) return *env;
  if (auto dir = besideExecutable(NESTOR_INSTALL_DOCS_SUBDIR, "rules/README.md")) return *dir;
  return NESTOR_DOCS_DIR;
}

const char *fallbackCudaHeaderPath() { return "/nestor-builtin/nestor_cuda_fallback.h"; }

const char *fallbackCudaHeaderText() {
  // Enough of the CUDA runtime API for kernels to parse when no toolkit is
  // installed (-nocudainc): attributes, dim3, launch configuration, common
  // intrinsics. Analysis only; nothing here is ever compiled to code.
  return R"cuda(
#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>
typedef __SIZE_TYPE__ size_t;
typedef struct CUstream_st *cudaStream_t;
typedef enum cudaError { cudaSuccess = 0, cudaErrorUnknown = 999 } cudaError_t;
#define cudaStreamFireAndForget ((cudaStream_t)0x4)
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
extern "C" __host__ __device__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, void *stream = 0);
extern "C" __host__ __device__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
extern "C" __host__ cudaError_t cudaDeviceSynchronize(void); // host only since CUDA 12 (CDP2)
// Device-side launches (dynamic parallelism) are lowered through these.
extern "C" __host__ __device__ void *cudaGetParameterBuffer(size_t alignment, size_t size);
extern "C" __host__ __device__ cudaError_t cudaLaunchDevice(void *func, void *parameterBuffer, dim3 gridDimension,
                                                            dim3 blockDimension, unsigned int sharedMemSize,
                                                            cudaStream_t stream);
extern "C" __host__ __device__ cudaError_t cudaGetLastError(void);
extern "C" __host__ cudaError_t cudaMalloc(void **p, size_t n);
extern "C" __host__ cudaError_t cudaFree(void *p);
extern "C" __host__ cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind);
extern "C" __device__ int printf(const char *, ...);
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ unsigned __activemask(void);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ int __any_sync(unsigned, int);
__device__ int __all_sync(unsigned, int);
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> __device__ T atomicAdd(T *, T);
template <class T> __device__ T atomicSub(T *, T);
template <class T> __device__ T atomicMin(T *, T);
template <class T> __device__ T atomicMax(T *, T);
template <class T> __device__ T atomicExch(T *, T);
template <class T> __device__ T atomicCAS(T *, T, T);
template <class T> __device__ T atomicAnd(T *, T);
template <class T> __device__ T atomicOr(T *, T);
template <class T> __device__ T atomicXor(T *, T);
template <class T> __host__ __device__ T min(T a, T b) { return a < b ? a : b; }
template <class T> __host__ __device__ T max(T a, T b) { return a < b ? b : a; }
__host__ __device__ float sqrtf(float);
__host__ __device__ float fabsf(float);
__host__ __device__ float fminf(float, float);
__host__ __device__ float fmaxf(float, float);
__host__ __device__ float ceilf(float);
__host__ __device__ double ceil(double);
__host__ __device__ double sqrt(double);
)cuda";
}

} // namespace nestor
