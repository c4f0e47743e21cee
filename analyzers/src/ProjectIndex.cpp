// The project's launch index and includers (nestor/ProjectIndex.h).
#include "nestor/ProjectIndex.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <deque>

namespace nestor {

namespace {

std::string absolute(llvm::StringRef p) {
  llvm::SmallString<256> abs(p);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, true);
  return std::string(abs);
}

using IncludeList = std::vector<std::pair<bool, std::string>>; // (quoted, name)

// The #include names of a file, read from its lines (no preprocessing: an
// #include under a false #if still counts, which only widens the includers).
const IncludeList &includesOf(const std::string &file, std::map<std::string, IncludeList> &cache) {
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  IncludeList out;
  if (auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/true)) {
    llvm::SmallVector<llvm::StringRef, 0> lines;
    (*buf)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines) {
      line = line.ltrim();
      if (!line.consume_front("#")) continue;
      line = line.ltrim();
      if (!line.consume_front("include")) continue;
      line = line.ltrim();
      if (line.empty() || (line[0] != '"' && line[0] != '<')) continue;
      char close = line[0] == '"' ? '"' : '>';
      size_t end = line.find(close, 1);
      if (end == llvm::StringRef::npos) continue;
      out.emplace_back(close == '"', line.slice(1, end).str());
    }
  }
  return cache.emplace(file, std::move(out)).first->second;
}

// The project's own include directories of a database command: -I, -iquote
// (nvcc's --include-path too), relative ones against the command's directory.
// -isystem directories (toolkits, libraries) are not followed.
std::vector<std::string> projectIncludeDirs(const clang::tooling::CompileCommand &cmd) {
  std::vector<std::string> dirs;
  const std::vector<std::string> &w = cmd.CommandLine;
  for (size_t i = 0; i < w.size(); ++i) {
    llvm::StringRef a(w[i]);
    std::string d;
    if ((a == "-I" || a == "-iquote" || a == "--include-path") && i + 1 < w.size()) d = w[++i];
    else if (a.starts_with("--include-path=")) d = a.drop_front(15).str();
    else if (a.starts_with("-I") && a.size() > 2) d = a.drop_front(2).str();
    if (d.empty()) continue;
    llvm::SmallString<256> p(d);
    if (!llvm::sys::path::is_absolute(p)) {
      p = cmd.Directory;
      llvm::sys::path::append(p, d);
    }
    dirs.push_back(absolute(p));
  }
  return dirs;
}

// header -> the first CUDA file of the database (in its order) that includes
// it, directly or through other project files. One read of the database and
// of each file's #include lines: cheap enough for every analysis of a file
// without an entry (a project of 300 CUDA TUs: a few hundred small reads).
std::map<std::string, std::string> computeIncluders(const std::string &dbDir) {
  std::map<std::string, std::string> includer;
  llvm::SmallString<256> dbFile(dbDir);
  llvm::sys::path::append(dbFile, "compile_commands.json");
  std::string error;
  auto db = clang::tooling::JSONCompilationDatabase::loadFromFile(dbFile, error,
                                                                  clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!db) return includer;
  std::map<std::string, IncludeList> cache;
  std::set<std::string> ownEntries;
  std::vector<clang::tooling::CompileCommand> cmds = db->getAllCompileCommands();
  for (const auto &cmd : cmds) {
    llvm::SmallString<256> p(cmd.Filename);
    if (!llvm::sys::path::is_absolute(p)) {
      p = cmd.Directory;
      llvm::sys::path::append(p, cmd.Filename);
    }
    ownEntries.insert(absolute(p));
  }
  std::set<std::string> done;
  for (const auto &cmd : cmds) {
    llvm::SmallString<256> p(cmd.Filename);
    if (!llvm::sys::path::is_absolute(p)) {
      p = cmd.Directory;
      llvm::sys::path::append(p, cmd.Filename);
    }
    std::string tu = absolute(p);
    if (!isCudaSourcePath(tu) || !done.insert(tu).second) continue;
    std::vector<std::string> includeDirs = projectIncludeDirs(cmd);
    std::set<std::string> seen{tu};
    std::deque<std::string> queue{tu};
    while (!queue.empty() && seen.size() < 4096) {
      std::string file = queue.front();
      queue.pop_front();
      std::string dir = llvm::sys::path::parent_path(file).str();
      for (const auto &[quoted, name] : includesOf(file, cache)) {
        std::vector<std::string> dirs;
        if (quoted) dirs.push_back(dir);
        dirs.insert(dirs.end(), includeDirs.begin(), includeDirs.end());
        for (const std::string &d : dirs) {
          llvm::SmallString<256> q(d);
          llvm::sys::path::append(q, name);
          if (!llvm::sys::fs::is_regular_file(q)) continue;
          std::string found = absolute(q);
          if (seen.insert(found).second) {
            queue.push_back(found);
            if (!ownEntries.count(found)) includer.emplace(found, tu);
          }
          break;
        }
      }
    }
  }
  return includer;
}

struct IncluderCache {
  std::mutex mu;
  struct Entry {
    llvm::sys::TimePoint<> modified;
    std::string flagsKey;
    std::map<std::string, std::string> includers;
  };
  std::map<std::string, Entry> byDatabase;
};
IncluderCache &includerCache() {
  static IncluderCache c;
  return c;
}

} // namespace

std::map<std::string, std::string> includersInDatabase(const std::string &dbDirIn, const FlagOptions &flagsIn) {
  std::string dbDir = absolute(dbDirIn);
  llvm::SmallString<256> dbFile(dbDir);
  llvm::sys::path::append(dbFile, "compile_commands.json");
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(dbFile, st)) return {};
  // The includers are read from the database's commands; the flags do not change them.
  (void)flagsIn;
  std::string key;
  IncluderCache &c = includerCache();
  {
    std::lock_guard<std::mutex> l(c.mu);
    auto it = c.byDatabase.find(dbDir);
    if (it != c.byDatabase.end() && it->second.modified == st.getLastModificationTime() && it->second.flagsKey == key)
      return it->second.includers;
  }
  // Computed outside the lock (it reads every CUDA file's #include lines).
  std::map<std::string, std::string> includers = computeIncluders(dbDir);
  std::lock_guard<std::mutex> l(c.mu);
  c.byDatabase[dbDir] = {st.getLastModificationTime(), key, includers};
  return includers;
}

std::string includerInDatabase(const std::string &dbDir, const std::string &file, const FlagOptions &flags) {
  auto includers = includersInDatabase(dbDir, flags);
  auto it = includers.find(absolute(file));
  return it == includers.end() ? "" : it->second;
}

std::string kernelIndexKey(const clang::FunctionDecl *fd) {
  if (!fd) return "";
  fd = fd->getCanonicalDecl();
  if (const clang::FunctionDecl *pattern = fd->getTemplateInstantiationPattern()) fd = pattern->getCanonicalDecl();
  if (!fd->isExternallyVisible()) return "";
  llvm::SmallString<128> usr;
  if (clang::index::generateUSRForDecl(fd, usr)) return "";
  return std::string(usr);
}

// ---------------------------------------------------------------- the on-disk form

namespace {

llvm::json::Value spanJson(const SourceSpan &s) {
  return llvm::json::Array{s.begin.line, s.begin.column, s.begin.offset, s.end.line, s.end.column, s.end.offset};
}
SourceSpan spanFrom(const llvm::json::Value *v, const std::string &file) {
  SourceSpan s;
  s.file = file;
  const llvm::json::Array *a = v ? v->getAsArray() : nullptr;
  if (!a || a->size() != 6) return s;
  unsigned *fields[6] = {&s.begin.line, &s.begin.column, &s.begin.offset, &s.end.line, &s.end.column, &s.end.offset};
  for (size_t i = 0; i < 6; ++i) *fields[i] = unsigned((*a)[i].getAsInteger().value_or(0));
  return s;
}

llvm::json::Value launchJson(const IndexedLaunch &l) {
  llvm::json::Object o{{"kernel", l.kernel},     {"usr", l.kernelUsr},        {"id", l.site.id},
                       {"parent", l.site.parent}, {"grid", l.site.grid},       {"block", l.site.block},
                       {"sharedMem", l.site.sharedMem}, {"stream", l.site.stream}, {"span", spanJson(l.site.span)},
                       {"configSpan", spanJson(l.site.configSpan)}, {"gridSpan", spanJson(l.site.gridSpan)},
                       {"blockSpan", spanJson(l.site.blockSpan)}};
  llvm::json::Array args;
  for (const std::string &a : l.site.args) args.push_back(a);
  o["args"] = std::move(args);
  if (l.site.gridValue) o["gridValue"] = int64_t(*l.site.gridValue);
  if (l.site.blockValue) o["blockValue"] = int64_t(*l.site.blockValue);
  return o;
}

std::optional<IndexedLaunch> launchFrom(const llvm::json::Value &v, const std::string &file) {
  const llvm::json::Object *o = v.getAsObject();
  if (!o) return std::nullopt;
  IndexedLaunch l;
  l.file = file;
  auto str = [&](const char *k) { return o->getString(k).value_or("").str(); };
  l.kernel = str("kernel");
  l.kernelUsr = str("usr");
  if (l.kernelUsr.empty()) return std::nullopt;
  l.site.id = int(o->getInteger("id").value_or(-1));
  l.site.child = l.kernel;
  l.site.parent = str("parent");
  l.site.grid = str("grid");
  l.site.block = str("block");
  l.site.sharedMem = str("sharedMem");
  l.site.stream = str("stream");
  l.site.span = spanFrom(o->get("span"), file);
  l.site.configSpan = spanFrom(o->get("configSpan"), file);
  l.site.gridSpan = spanFrom(o->get("gridSpan"), file);
  l.site.blockSpan = spanFrom(o->get("blockSpan"), file);
  if (const llvm::json::Array *a = o->getArray("args"))
    for (const llvm::json::Value &x : *a) l.site.args.push_back(x.getAsString().value_or("").str());
  if (auto g = o->getInteger("gridValue")) l.site.gridValue = uint64_t(*g);
  if (auto b = o->getInteger("blockValue")) l.site.blockValue = uint64_t(*b);
  return l;
}

} // namespace

// ---------------------------------------------------------------- the index

ProjectIndex::ProjectIndex(std::string dbDir, FlagOptions flags, unsigned threads)
    : dbDir_(absolute(dbDir)), flags_(std::move(flags)) {
  flags_.compileCommandsDir = dbDir_;
  flags_.includer.clear();
  auto files = databaseFiles(dbDir_);
  if (!files) {
    error_ = llvm::toString(files.takeError());
    return;
  }
  pool_ = std::make_unique<llvm::DefaultThreadPool>(threads == 0 ? llvm::hardware_concurrency()
                                                                 : llvm::hardware_concurrency(threads));
  for (const std::string &f : *files)
    if (isCudaSourcePath(f)) {
      files_.insert(f);
      enqueue(f, std::nullopt);
    }
}

ProjectIndex::~ProjectIndex() {
  if (pool_) pool_->wait();
}

std::string ProjectIndex::error() const {
  std::lock_guard<std::mutex> l(mu_);
  return error_;
}

void ProjectIndex::enqueue(const std::string &file, std::optional<std::string> contents) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++pending_;
  }
  pool_->async([this, file, contents = std::move(contents)] {
    indexOne(file, contents);
    std::lock_guard<std::mutex> l(mu_);
    if (--pending_ == 0) idle_.notify_all();
  });
}

void ProjectIndex::wait() {
  std::unique_lock<std::mutex> l(mu_);
  idle_.wait(l, [&] { return pending_ == 0; });
}

void ProjectIndex::update(const std::string &fileIn, std::optional<std::string> contents) {
  if (!pool_) return;
  std::string file = absolute(fileIn);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!files_.count(file)) return; // not a translation unit of the database
    unsaved_[file] = contents;
  }
  enqueue(file, std::move(contents));
}

uint64_t ProjectIndex::hashOf(const std::string &file, const std::optional<std::string> &contents) const {
  std::string text;
  if (contents) text = *contents;
  else if (auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/true)) text = (*buf)->getBuffer().str();
  else return 0;
  std::string key = text + '\0';
  if (auto cc = compileCommandFor(file, flags_)) {
    for (const std::string &a : cc->args) key += a + '\0';
  } else {
    llvm::consumeError(cc.takeError());
  }
  return llvm::xxh3_64bits(key);
}

std::string ProjectIndex::cachePath(const std::string &file) const {
  llvm::SmallString<256> p(dbDir_);
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.json", (unsigned long long)llvm::xxh3_64bits(file));
  llvm::sys::path::append(p, ".nestor-index", llvm::sys::path::stem(file) + "-" + name);
  return std::string(p);
}

void ProjectIndex::indexOne(const std::string &file, std::optional<std::string> contents) {
  if (contents) {
    // A newer text queued since (the editor's next change): this one is stale.
    std::lock_guard<std::mutex> l(mu_);
    auto it = unsaved_.find(file);
    if (it != unsaved_.end() && it->second != contents) return;
  }
  uint64_t hash = hashOf(file, contents);
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(file);
    if (it != entries_.end() && it->second.hash == hash && hash != 0) return; // unchanged
  }
  Entry entry;
  entry.hash = hash;
  // The entry on disk, when its hash is this text's.
  std::string cache = cachePath(file);
  bool fromDisk = false;
  if (!contents) {
    if (auto buf = llvm::MemoryBuffer::getFile(cache, /*IsText=*/true)) {
      auto v = llvm::json::parse((*buf)->getBuffer());
      if (v) {
        const llvm::json::Object *o = v->getAsObject();
        if (o && o->getString("hash").value_or("") == std::to_string(hash) && o->getArray("launches")) {
          for (const llvm::json::Value &x : *o->getArray("launches"))
            if (auto l = launchFrom(x, file)) entry.launches.push_back(std::move(*l));
          fromDisk = true;
        }
      } else {
        llvm::consumeError(v.takeError());
      }
    }
  }
  if (!fromDisk) {
    AnalysisOptions opts;
    opts.flags = flags_;
    opts.contents = contents;
    auto tu = analyzeFile(file, opts);
    {
      std::lock_guard<std::mutex> l(mu_);
      ++analyses_;
    }
    if (!tu) {
      llvm::consumeError(tu.takeError());
    } else {
      for (const LaunchSite &ls : (*tu)->model().launches) {
        if (ls.deviceSide || (!ls.span.file.empty() && absolute(ls.span.file) != file)) continue;
        const clang::CUDAKernelCallExpr *call = (*tu)->launchExpr(ls.id);
        std::string usr = call ? kernelIndexKey(call->getDirectCallee()) : "";
        if (usr.empty()) continue;
        IndexedLaunch l{file, ls.child, usr, ls};
        l.site.span.file = l.site.gridSpan.file = l.site.blockSpan.file = l.site.configSpan.file = file;
        entry.launches.push_back(std::move(l));
      }
      if (!contents) {
        llvm::json::Array launches;
        for (const IndexedLaunch &l : entry.launches) launches.push_back(launchJson(l));
        llvm::json::Object o{{"file", file}, {"hash", std::to_string(hash)}, {"launches", std::move(launches)}};
        llvm::SmallString<256> dir(llvm::sys::path::parent_path(cache));
        if (!llvm::sys::fs::create_directories(dir)) {
          // A unique name, then rename: two indexes of one project may write at once.
          llvm::SmallString<256> tmp;
          int fd;
          if (!llvm::sys::fs::createUniqueFile(cache + ".%%%%%%", fd, tmp)) {
            {
              llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
              os << llvm::json::Value(std::move(o));
            }
            if (llvm::sys::fs::rename(tmp, cache)) llvm::sys::fs::remove(tmp);
          }
        }
      }
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  entries_[file] = std::move(entry);
}

std::vector<IndexedLaunch> ProjectIndex::hostLaunchesOf(const std::string &usr, bool waitForBuild) {
  if (usr.empty() || !pool_) return {};
  if (waitForBuild) wait();
  std::lock_guard<std::mutex> l(mu_);
  std::vector<IndexedLaunch> out;
  for (const auto &[file, e] : entries_)
    for (const IndexedLaunch &launch : e.launches)
      if (launch.kernelUsr == usr) out.push_back(launch);
  return out;
}

std::shared_ptr<const AnalyzedTU> ProjectIndex::unit(const std::string &fileIn) {
  std::string file = absolute(fileIn);
  std::optional<std::string> contents;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = unsaved_.find(file);
    if (it != unsaved_.end()) contents = it->second;
  }
  uint64_t hash = hashOf(file, contents);
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = units_.find(file);
    if (it != units_.end() && it->second.first == hash) return it->second.second;
  }
  AnalysisOptions opts;
  opts.flags = flags_;
  opts.contents = contents;
  auto tu = analyzeFile(file, opts);
  if (!tu) {
    llvm::consumeError(tu.takeError());
    return nullptr;
  }
  std::shared_ptr<const AnalyzedTU> shared(std::move(*tu));
  std::lock_guard<std::mutex> l(mu_);
  ++analyses_;
  units_[file] = {hash, shared};
  return shared;
}

size_t ProjectIndex::analyses() const {
  std::lock_guard<std::mutex> l(mu_);
  return analyses_;
}

bool ProjectIndex::idle() const {
  std::lock_guard<std::mutex> l(mu_);
  return pending_ == 0;
}

size_t ProjectIndex::indexedUnits() const {
  std::lock_guard<std::mutex> l(mu_);
  return entries_.size();
}

} // namespace nestor
