// Parsing: compile command -> CompilerInvocation -> CompilerInstance whose AST
// stays alive for the lifetime of the AnalyzedTU (as clangd's ParsedAST does).
#include "nestor/Analysis.h"
#include "nestor/Pragma.h"
#include "nestor/ProjectIndex.h"
#include "ModelBuilder.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace nestor {

bool isCudaSourcePath(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext == ".cu" || ext == ".cuh";
}

llvm::Error checkInputFile(const std::string &path, bool requireCudaExtension) {
  llvm::sys::fs::file_status st;
  if (auto ec = llvm::sys::fs::status(path, st))
    return llvm::createStringError("%s: cannot read file: %s", path.c_str(), ec.message().c_str());
  if (st.type() == llvm::sys::fs::file_type::directory_file)
    return llvm::createStringError("%s: is a directory", path.c_str());
  if (st.type() != llvm::sys::fs::file_type::regular_file)
    return llvm::createStringError("%s: not a regular file", path.c_str());
  if (requireCudaExtension && !isCudaSourcePath(path))
    return llvm::createStringError("%s: not a CUDA source file (expected .cu or .cuh)", path.c_str());
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return llvm::createStringError("%s: cannot read file: %s", path.c_str(), buf.getError().message().c_str());
  llvm::StringRef head = (*buf)->getBuffer().take_front(8192);
  if (head.contains('\0'))
    return llvm::createStringError("%s: binary file, not CUDA source", path.c_str());
  return llvm::Error::success();
}

namespace {

// Records every `#pragma np` the preprocessor meets. Registering a handler is
// what keeps clang from warning "unknown pragma"; the pragma's text is taken
// from the source buffer so that errors carry exact columns.
class NpPragmaHandler : public clang::PragmaHandler {
public:
  explicit NpPragmaHandler(std::vector<NpPragma> &out) : PragmaHandler("np"), out_(out) {}

  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Introducer,
                    clang::Token &FirstToken) override {
    clang::SourceManager &SM = PP.getSourceManager();
    clang::SourceLocation loc = SM.getFileLoc(FirstToken.getLocation()); // at "np"
    // Consume the rest of the directive.
    clang::Token tok;
    do PP.Lex(tok);
    while (tok.isNot(clang::tok::eod) && tok.isNot(clang::tok::eof));
    if (!SM.isWrittenInMainFile(loc)) return;
    auto [fid, offset] = SM.getDecomposedLoc(loc);
    llvm::StringRef buffer = SM.getBufferData(fid);
    size_t end = offset;
    while (end < buffer.size() && buffer[end] != '\n') {
      if (buffer[end] == '\\' && end + 1 < buffer.size() && buffer[end + 1] == '\n') end += 2;
      else ++end;
    }
    PragmaTextOrigin origin;
    origin.file = SM.getFilename(loc).str();
    origin.line = SM.getSpellingLineNumber(loc);
    origin.column = SM.getSpellingColumnNumber(loc);
    origin.offset = offset;
    NpPragma p = parseNpPragma(buffer.substr(offset, end - offset), origin);
    // The span of the whole directive starts at '#'.
    clang::SourceLocation hash = SM.getFileLoc(Introducer.Loc);
    unsigned hashOffset = SM.getFileOffset(hash);
    p.span.begin = {SM.getSpellingLineNumber(hash), SM.getSpellingColumnNumber(hash), hashOffset};
    out_.push_back(std::move(p));
  }

private:
  std::vector<NpPragma> &out_;
};

// Keeps clang's errors (and the warnings we surface) for the model.
class CollectingDiagConsumer : public clang::DiagnosticConsumer {
public:
  std::vector<ParseDiagnostic> diags;
  const clang::SourceManager *SM = nullptr;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    if (diags.size() >= 200) return; // enough to show; the rest adds nothing
    ParseDiagnostic d;
    d.severity = level == clang::DiagnosticsEngine::Fatal ? "fatal" : "error";
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    d.message = std::string(msg);
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager &sm = info.getSourceManager();
      clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
      // Errors inside headers are reported at the #include in the main file.
      if (!sm.isWrittenInMainFile(loc)) {
        clang::SourceLocation inc = sm.getIncludeLoc(sm.getFileID(loc));
        while (inc.isValid() && !sm.isWrittenInMainFile(inc)) inc = sm.getIncludeLoc(sm.getFileID(inc));
        if (inc.isValid()) {
          d.message = sm.getFilename(loc).str() + ":" + std::to_string(sm.getSpellingLineNumber(loc)) +
                      ": " + d.message;
          loc = inc;
        }
      }
      if (sm.isWrittenInMainFile(loc)) {
        d.span.file = sm.getFilename(loc).str();
        d.span.begin = {sm.getSpellingLineNumber(loc), sm.getSpellingColumnNumber(loc), sm.getFileOffset(loc)};
        d.span.end = d.span.begin;
        d.span.end.column += 1;
        d.span.end.offset += 1;
      }
    }
    diags.push_back(std::move(d));
  }
};

// Records the top-level declarations parsed from the source (not those
// deserialised from the preamble), so the model builder visits the file's own
// code without pulling every CUDA header declaration out of the PCH, as
// clangd's ParsedAST does with its local top-level decls.
// Also where a cancelled analysis stops: returning false from
// HandleTopLevelDecl ends the parse after the declaration at hand, so an
// editor's newer version (or a client that went away) does not wait for the
// rest of a large file.
class TopLevelDeclCollector : public clang::ASTConsumer {
public:
  TopLevelDeclCollector(std::vector<const clang::Decl *> &out, const std::atomic<bool> *cancelled)
      : out_(out), cancelled_(cancelled) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (const clang::Decl *d : group)
      if (!d->isFromASTFile()) out_.push_back(d);
    return !(cancelled_ && cancelled_->load());
  }

private:
  std::vector<const clang::Decl *> &out_;
  const std::atomic<bool> *cancelled_;
};

class NestorParseAction : public clang::SyntaxOnlyAction {
public:
  NestorParseAction(std::vector<NpPragma> &pragmas, std::vector<const clang::Decl *> &decls,
                    const std::atomic<bool> *cancelled)
      : pragmas_(pragmas), decls_(decls), cancelled_(cancelled) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        llvm::StringRef file) override {
    CI.getPreprocessor().AddPragmaHandler(new NpPragmaHandler(pragmas_));
    return std::make_unique<TopLevelDeclCollector>(decls_, cancelled_);
  }

private:
  std::vector<NpPragma> &pragmas_;
  std::vector<const clang::Decl *> &decls_;
  const std::atomic<bool> *cancelled_;
};

class SkipSystemBodies : public clang::PreambleCallbacks {
public:
  bool shouldSkipFunctionBody(clang::Decl *d) override {
    const clang::SourceManager &sm = d->getASTContext().getSourceManager();
    return sm.isInSystemHeader(sm.getFileLoc(d->getLocation()));
  }
};

} // namespace

struct ParsedTU {
  std::unique_ptr<llvm::MemoryBuffer> ownedText; // what was analysed
  std::vector<NpPragma> pragmas;
  std::vector<const clang::Decl *> topLevelDecls;
  CollectingDiagConsumer diags;
  std::shared_ptr<clang::PrecompiledPreamble> preamble; // must outlive the AST
  std::unique_ptr<clang::CompilerInstance> clang;
  std::unique_ptr<NestorParseAction> action;
  ~ParsedTU() {
    if (action) action->EndSourceFile();
  }
};

/// The cache key of a file's implicit-includes-only preamble
/// (AnalysisOptions::precompileImplicitIncludesOnly).
static std::string implicitPreambleKey(const std::string &path) { return path + "\n<implicit includes>"; }

struct PreambleCache::Impl {
  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<clang::PrecompiledPreamble>> byFile;
  size_t builds = 0;
  /// The compiler invocation of each file with the command it came from:
  /// the next analysis with the same command copies it instead of running
  /// the driver again (which probes the file system for the CUDA and GCC
  /// installations on every call).
  struct Invocation {
    std::vector<std::string> args;
    std::string directory;
    bool fallbackCudaHeaders = false;
    std::shared_ptr<const clang::CompilerInvocation> invocation;
  };
  std::map<std::string, Invocation> invocations;
};
PreambleCache::PreambleCache() : impl(std::make_unique<Impl>()) {}
PreambleCache::~PreambleCache() = default;
size_t PreambleCache::size() const {
  std::lock_guard<std::mutex> l(impl->mu);
  return impl->byFile.size();
}
size_t PreambleCache::builds() const {
  std::lock_guard<std::mutex> l(impl->mu);
  return impl->builds;
}
void PreambleCache::forget(const std::string &file) {
  std::lock_guard<std::mutex> l(impl->mu);
  impl->byFile.erase(file);
  impl->byFile.erase(implicitPreambleKey(file));
  impl->invocations.erase(file);
}


AnalyzedTU::~AnalyzedTU() = default;
clang::ASTContext &AnalyzedTU::astContext() const { return parsed_->clang->getASTContext(); }
clang::SourceManager &AnalyzedTU::sourceManager() const { return parsed_->clang->getSourceManager(); }
const clang::LangOptions &AnalyzedTU::langOptions() const { return parsed_->clang->getLangOpts(); }
llvm::StringRef AnalyzedTU::mainFileText() const { return parsed_->ownedText->getBuffer(); }
const std::vector<const clang::Decl *> &AnalyzedTU::topLevelDecls() const { return parsed_->topLevelDecls; }
const clang::Stmt *AnalyzedTU::loopStmt(int id) const {
  auto it = loopNodes.find(id);
  return it == loopNodes.end() ? nullptr : it->second;
}
const clang::CUDAKernelCallExpr *AnalyzedTU::launchExpr(int id) const {
  auto it = launchNodes.find(id);
  return it == launchNodes.end() ? nullptr : it->second;
}
const clang::FunctionDecl *AnalyzedTU::functionDecl(const std::string &name) const {
  auto it = functionNodes.find(name);
  return it == functionNodes.end() ? nullptr : it->second;
}

llvm::Expected<std::unique_ptr<AnalyzedTU>>
analyzeFile(const std::string &pathIn, const AnalysisOptions &opts, PreambleCache *preambles) {
  llvm::SmallString<256> absPath(pathIn);
  llvm::sys::fs::make_absolute(absPath);
  llvm::sys::path::remove_dots(absPath, true);
  std::string path(absPath);

  auto parsed = std::make_unique<ParsedTU>();
  if (opts.contents) {
    if (llvm::StringRef(*opts.contents).take_front(8192).contains('\0'))
      return llvm::createStringError("%s: binary contents, not CUDA source", pathIn.c_str());
    parsed->ownedText = llvm::MemoryBuffer::getMemBufferCopy(*opts.contents, path);
  } else {
    if (auto err = checkInputFile(pathIn)) return std::move(err);
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buf)
      return llvm::createStringError("%s: cannot read file: %s", pathIn.c_str(), buf.getError().message().c_str());
    parsed->ownedText = std::move(*buf);
  }

  // The device side of the compilation when the file tests __CUDA_ARCH__:
  // there its kernels are what the GPU runs (a device-only path and its
  // launches), not the host fallback. Found by a search of the text, so a
  // file that never tests it is parsed once, on the host side, as before.
  FlagOptions flags = opts.flags;
  flags.deviceSide = opts.side == AnalysisOptions::Side::Device ||
                     (opts.side == AnalysisOptions::Side::Auto && parsed->ownedText->getBuffer().contains("__CUDA_ARCH__"));
  auto command = compileCommandFor(path, flags);
  if (!command) return command.takeError();

  std::vector<const char *> argv;
  for (const auto &a : command->args) argv.push_back(a.c_str());

  // A file system of our own: the compile command's directory becomes its
  // working directory without touching the process's (which the shared
  // getRealFileSystem() would change, under every other file and thread).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs = llvm::vfs::createPhysicalFileSystem();
  if (command->fallbackCudaHeaders) {
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(vfs);
    auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    mem->addFile(fallbackCudaHeaderPath(), 0, llvm::MemoryBuffer::getMemBuffer(fallbackCudaHeaderText()));
    overlay->pushOverlay(mem);
    vfs = overlay;
  }
  if (!command->directory.empty()) vfs->setCurrentWorkingDirectory(command->directory);

  std::shared_ptr<clang::CompilerInvocation> invocation;
  if (preambles) {
    std::lock_guard<std::mutex> l(preambles->impl->mu);
    auto it = preambles->impl->invocations.find(path);
    if (it != preambles->impl->invocations.end() && it->second.args == command->args &&
        it->second.directory == command->directory && it->second.fallbackCudaHeaders == command->fallbackCudaHeaders)
      invocation = std::make_shared<clang::CompilerInvocation>(*it->second.invocation); // a deep copy
  }
  if (!invocation) {
    clang::DiagnosticOptions driverDiagOpts;
    clang::IgnoringDiagConsumer ignoreDriver;
    clang::CreateInvocationOptions ciOpts;
    ciOpts.Diags = clang::CompilerInstance::createDiagnostics(*vfs, driverDiagOpts, &ignoreDriver, false);
    ciOpts.VFS = vfs;
    ciOpts.RecoverOnError = true;
    invocation = clang::createInvocation(argv, ciOpts);
    if (!invocation)
      return llvm::createStringError("%s: could not build a compiler invocation from the %s", pathIn.c_str(),
                                     command->origin.c_str());
    invocation->getFrontendOpts().DisableFree = false;
    if (preambles) {
      auto kept = std::make_shared<const clang::CompilerInvocation>(*invocation);
      std::lock_guard<std::mutex> l(preambles->impl->mu);
      preambles->impl->invocations[path] = {command->args, command->directory, command->fallbackCudaHeaders, kept};
    }
  }

  // The precompiled preamble: reuse it when the #include block is unchanged.
  clang::PreambleBounds bounds =
      opts.precompileImplicitIncludesOnly
          ? clang::PreambleBounds(0, /*PreambleEndsAtStartOfLine=*/false)
          : clang::ComputePreambleBounds(invocation->getLangOpts(), parsed->ownedText->getMemBufferRef(), 0);
  // Even an empty #include block has a preamble worth keeping: the CUDA
  // headers clang includes implicitly. Not so with the built-in CUDA header
  // (no toolkit): a few kilobytes parse faster than a precompiled preamble is
  // built and loaded, so without an #include of its own the file is parsed
  // whole (the fuzz target: every input has its own leading lines).
  bool worthPrecompiling = opts.precompileImplicitIncludesOnly || !command->fallbackCudaHeaders ||
                           parsed->ownedText->getBuffer().take_front(bounds.Size).contains("#include") ||
                           parsed->ownedText->getBuffer().take_front(bounds.Size).contains("#import");
  if (preambles && worthPrecompiling) {
    // The implicit-includes-only preamble does not depend on the file's
    // text: kept apart from the file's own, so the two modes never evict
    // each other.
    const std::string preambleKey = opts.precompileImplicitIncludesOnly ? implicitPreambleKey(path) : path;
    std::shared_ptr<clang::PrecompiledPreamble> existing;
    {
      std::lock_guard<std::mutex> l(preambles->impl->mu);
      auto it = preambles->impl->byFile.find(preambleKey);
      if (it != preambles->impl->byFile.end()) existing = it->second;
    }
    if (existing && existing->CanReuse(*invocation, parsed->ownedText->getMemBufferRef(), bounds, *vfs)) {
      parsed->preamble = existing;
    } else {
      clang::DiagnosticOptions preambleDiagOpts;
      clang::IgnoringDiagConsumer ignorePreamble;
      auto preambleDiags =
          clang::CompilerInstance::createDiagnostics(*vfs, preambleDiagOpts, &ignorePreamble, false);
      // Bodies of functions in system headers (the CUDA toolkit, the C++
      // library) are never analysed: skip them in the preamble, as clangd
      // does. Bodies in the project's own headers are kept (child kernels
      // defined there are checked for serialisability).
      SkipSystemBodies callbacks;
      clang::CompilerInvocation preambleInvocation(*invocation);
      preambleInvocation.getFrontendOpts().SkipFunctionBodies = true;
      auto built = clang::PrecompiledPreamble::Build(
          preambleInvocation, parsed->ownedText.get(), bounds, preambleDiags, vfs,
          std::make_shared<clang::PCHContainerOperations>(), /*StoreInMemory=*/true, "", callbacks);
      if (built) {
        parsed->preamble = std::make_shared<clang::PrecompiledPreamble>(std::move(*built));
        std::lock_guard<std::mutex> l(preambles->impl->mu);
        preambles->impl->byFile[preambleKey] = parsed->preamble;
        ++preambles->impl->builds;
      }
    }
  }

  if (opts.cancelled && opts.cancelled->load())
    return llvm::createStringError("%s: analysis cancelled", pathIn.c_str());

  // The buffer is remapped over the file (unsaved contents win); the
  // invocation's remapping does not own it, ParsedTU does.
  auto mainBuffer = llvm::MemoryBuffer::getMemBuffer(parsed->ownedText->getMemBufferRef(), false);
  if (parsed->preamble) {
    parsed->preamble->AddImplicitPreamble(*invocation, vfs, mainBuffer.release());
  } else {
    invocation->getPreprocessorOpts().addRemappedFile(path, mainBuffer.release());
  }
  invocation->getPreprocessorOpts().RetainRemappedFileBuffers = false;

  parsed->clang = std::make_unique<clang::CompilerInstance>(invocation);
  parsed->clang->setVirtualFileSystem(vfs);
  parsed->clang->createDiagnostics(&parsed->diags, /*ShouldOwnClient=*/false);
  parsed->clang->createFileManager();
  if (!parsed->clang->createTarget())
    return llvm::createStringError("%s: unsupported target for CUDA analysis", pathIn.c_str());

  parsed->action = std::make_unique<NestorParseAction>(parsed->pragmas, parsed->topLevelDecls, opts.cancelled);
  const clang::FrontendInputFile &input = parsed->clang->getFrontendOpts().Inputs.front();
  if (!parsed->action->BeginSourceFile(*parsed->clang, input))
    return llvm::createStringError("%s: clang could not start parsing the file", pathIn.c_str());
  if (llvm::Error err = parsed->action->Execute())
    return std::move(err);
  if (opts.cancelled && opts.cancelled->load()) // the parse may have stopped half-way
    return llvm::createStringError("%s: analysis cancelled", pathIn.c_str());

  auto tu = std::unique_ptr<AnalyzedTU>(new AnalyzedTU());
  tu->model_.file = path;
  tu->model_.droppedFlags = command->dropped;
  tu->model_.compileFlags = command->args;
  tu->model_.usedFallbackCudaHeaders = command->fallbackCudaHeaders;
  tu->model_.parseDiagnostics = parsed->diags.diags;
  tu->model_.pragmas = parsed->pragmas;
  tu->model_.compilationSide = flags.deviceSide ? "device" : "host";
  tu->parsed_ = std::move(parsed);
  tu->project_ = opts.project;
  buildModel(*tu);
  if (opts.project) {
    // Every host launch of each kernel in the project's other translation units.
    for (Kernel &k : tu->model_.kernels) {
      if (!k.isGlobal) continue;
      std::string key = kernelIndexKey(tu->functionDecl(k.name));
      for (IndexedLaunch &l : opts.project->hostLaunchesOf(key, opts.waitForProject))
        if (l.file != path) k.externalLaunches.push_back({l.file, std::move(l.site)});
    }
  }
  return tu;
}

} // namespace nestor
