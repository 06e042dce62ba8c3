// plugin/plugin.cpp — the `clang -fplugin` entry point, a thin C++ shim over
// the C front end (include/ompdag/frontend.h).  Clang's plugin ABI is C++
// only; everything else is C.
//
//   clang -fopenmp -fplugin=libompdag_plugin.so -fplugin-arg-ompdag-out=DIR
//         [-fplugin-arg-ompdag-werror] [-fplugin-arg-ompdag-recursion-bound=N]
//         [-fplugin-arg-ompdag-loop-bound=N] [-fplugin-arg-ompdag-node-limit=N]
//         [-fplugin-arg-ompdag-assume=NAME=VALUE]... [-fplugin-arg-ompdag-compdb=DIR]
//         [-fplugin-arg-ompdag-wcet=ANNOTATED.json [-fplugin-arg-ompdag-threads=M]] -c x.c
//
// The action runs after the main action (AddAfterMainAction), so code
// generation is untouched.  At the end of the translation unit it rebuilds a
// driver command line from the compiler's own preprocessor, header-search,
// language and target options, calls ompdag_frontend_extract() on the same
// input, and writes DIR/<object>.condag.json, one file per compilation:
// <object> is the whole object path made absolute (working directory + -o),
// relative to the build's top (the directory that holds DIR) when it lies
// below it, so a/x.o and b/x.o, or one source built with several -D flags
// into several objects, never share a file (the input path stands in when
// there is no object, e.g. -fsyntax-only).  A refused compilation writes
// DIR/<object>.refused.json (its refusals; `ompdag collect` lists them) next
// to the graphs of its regions that did extract, and touches no other
// compilation's files.  Front-end refusals become clang diagnostics at their
// source location, flagged [-Wompdag] and mapped by -w, -Werror,
// -Werror=ompdag and -Wno-ompdag as clang maps its own warnings; errors
// with -fplugin-arg-ompdag-werror.
//
// -fplugin-arg-ompdag-compdb=DIR (DIR/compile_commands.json, or the file
// itself): every other unit of the build is parsed and indexed beside the
// compiled one, so a call into a task-free function of another file is
// followed, not refused by the nearby-source heuristic (issue 24 item 5; as
// `extract -p` does).  Each compilation then parses the units of the
// database: the cost grows with the build.
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ompdag/frontend.h"
#include "ompdag/report.h"

namespace
{

struct PluginOptions {
    std::string out_dir;
    bool werror = false;
    int recursion_bound = 0;
    int loop_bound = -1; // -1: not given
    int node_limit = 0;
    int team_size = 0;
    std::string wcet_db; // annotated graphs of earlier runs: check deadlines at build time
    int threads = 0;     // m for that check; 0: each graph's own "threads"
    std::vector<std::string> assume; // NAME=VALUE: the input the graphs are built for
    std::string compdb;              // compile_commands.json: the build's other units
};

// One unit of the compilation database: its source and the arguments the
// front end parses it with (the compiler, -c, -o and dependency-file flags
// and the source itself dropped; its directory as -working-directory).
struct DbUnit {
    std::string source;
    std::vector<std::string> args;
};

std::vector<std::string> db_arguments(const llvm::json::Object &e)
{
    std::vector<std::string> out;
    if (const llvm::json::Array *a = e.getArray("arguments")) {
        for (const llvm::json::Value &v : *a)
            if (auto str = v.getAsString()) out.push_back(str->str());
    } else if (auto cmd = e.getString("command")) {
        llvm::BumpPtrAllocator alloc;
        llvm::StringSaver saver(alloc);
        llvm::SmallVector<const char *, 32> toks;
        llvm::cl::TokenizeGNUCommandLine(*cmd, saver, toks); // the shell's quoting
        for (const char *t : toks)
            out.push_back(t);
    }
    return out;
}

// The units of `path` (a compile_commands.json, or the directory holding
// one) other than `self` (compared by real path).  Unreadable or malformed
// databases give no unit and an error message in *why.
std::vector<DbUnit> read_compdb(const std::string &path, const std::string &self, std::string *why)
{
    std::vector<DbUnit> units;
    std::string file = path;
    if (llvm::sys::fs::is_directory(path)) file = path + "/compile_commands.json";
    auto buf = llvm::MemoryBuffer::getFile(file);
    if (!buf) {
        *why = file + ": " + buf.getError().message();
        return units;
    }
    llvm::Expected<llvm::json::Value> root = llvm::json::parse((*buf)->getBuffer());
    const llvm::json::Array *entries = root ? root->getAsArray() : nullptr;
    if (!entries) {
        if (!root) llvm::consumeError(root.takeError());
        *why = file + ": not a JSON array of compile commands";
        return units;
    }
    llvm::SmallString<256> self_real;
    if (llvm::sys::fs::real_path(self, self_real)) self_real = self;
    for (const llvm::json::Value &v : *entries) {
        const llvm::json::Object *e = v.getAsObject();
        auto dir = e ? e->getString("directory") : llvm::None;
        auto src = e ? e->getString("file") : llvm::None;
        if (!dir || !src) continue;
        llvm::SmallString<256> abs(*src), real;
        if (!llvm::sys::path::is_absolute(abs)) {
            abs = *dir;
            llvm::sys::path::append(abs, *src);
        }
        if (llvm::sys::fs::real_path(abs, real)) continue; /* gone (a generated source) */
        if (real == self_real) continue;
        DbUnit u{std::string(real), {"-working-directory", dir->str()}};
        std::vector<std::string> args = db_arguments(*e);
        for (size_t i = args.empty() ? 0 : 1; i < args.size(); ++i) { /* argv[0]: the compiler */
            llvm::StringRef a(args[i]);
            if (a == "-c" || a == "-MD" || a == "-MMD" || a == "-M" || a == "-MM" || a == *src ||
                a == abs.str())
                continue;
            if (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ") {
                ++i;
                continue;
            }
            if (a.startswith("-o") || a.startswith("-MF")) continue;
            u.args.push_back(args[i]);
        }
        units.push_back(std::move(u));
    }
    return units;
}

// The driver arguments that reproduce this compiler instance's view of the
// source: macros, include paths, standard, target.
std::vector<std::string> driver_args(const clang::CompilerInstance &ci)
{
    std::vector<std::string> a;
    const auto &pp = ci.getPreprocessorOpts();
    for (const auto &m : pp.Macros)
        a.push_back((m.second ? "-U" : "-D") + m.first);
    for (const auto &inc : pp.Includes) {
        a.push_back("-include");
        a.push_back(inc);
    }
    const auto &hs = ci.getHeaderSearchOpts();
    if (!hs.Sysroot.empty() && hs.Sysroot != "/") a.push_back("--sysroot=" + hs.Sysroot);
    if (!hs.UseStandardSystemIncludes) a.push_back("-nostdinc");
    if (!hs.UseBuiltinIncludes) a.push_back("-nobuiltininc");
    for (const auto &e : hs.UserEntries) {
        if (e.IsFramework) continue;
        switch (e.Group) {
        case clang::frontend::Angled:
            a.push_back("-I" + e.Path);
            break;
        case clang::frontend::Quoted:
            a.push_back("-iquote");
            a.push_back(e.Path);
            break;
        case clang::frontend::After:
            a.push_back("-idirafter");
            a.push_back(e.Path);
            break;
        case clang::frontend::System:
            if (!hs.ResourceDir.empty() && llvm::StringRef(e.Path).startswith(hs.ResourceDir))
                break;
            a.push_back("-isystem");
            a.push_back(e.Path);
            break;
        default:
            break;
        }
    }
    const auto &lang = ci.getLangOpts();
    const auto &std = clang::LangStandard::getLangStandardForKind(lang.LangStd);
    if (lang.LangStd != clang::LangStandard::lang_unspecified)
        a.push_back(std::string("-std=") + std.getName());
    if (lang.OpenMP) a.push_back("-fopenmp-version=" + std::to_string(lang.OpenMP));
    // -O defines __OPTIMIZE__ (and -Os __OPTIMIZE_SIZE__), which code may test.
    const auto &cg = ci.getCodeGenOpts();
    if (cg.OptimizeSize)
        a.push_back(cg.OptimizeSize == 2 ? "-Oz" : "-Os");
    else if (cg.OptimizationLevel > 0)
        a.push_back("-O" + std::to_string(cg.OptimizationLevel));
    if (!ci.getFileSystemOpts().WorkingDir.empty()) {
        a.push_back("-working-directory");
        a.push_back(ci.getFileSystemOpts().WorkingDir);
    }
    a.push_back("--target=" + ci.getTargetOpts().Triple);
    return a;
}

// ---- where a compilation's files go (docs/plugin.md, "Output files") ----
//
// Builds compile in many directories (recursive make) and name many objects
// alike (a/x.o, b/x.o, every application's main.o), so the name must come
// from the whole object path made absolute: the compile's working directory
// (-working-directory, else the process's) joined with -o.  The top of the
// build is taken to be the directory that contains the out DIR; an object
// below it keeps its path relative to it (DIR/a/x.o.condag.json), any other
// keeps all its absolute components (DIR/abs/dir/x.o.condag.json).

// `path` made absolute against `base` (the process's cwd when empty), with
// "." and ".." folded.
std::string absolute_path(llvm::StringRef base, llvm::StringRef path)
{
    llvm::SmallString<256> p;
    if (!llvm::sys::path::is_absolute(path)) {
        if (base.empty())
            llvm::sys::fs::current_path(p);
        else
            p = base;
        if (!llvm::sys::path::is_absolute(p)) { // relative -working-directory
            llvm::SmallString<256> cwd;
            llvm::sys::fs::current_path(cwd);
            llvm::sys::path::append(cwd, p);
            p = cwd;
        }
    }
    llvm::sys::path::append(p, path);
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    return std::string(p);
}

// DIR/<object relative to the build's top>, without a suffix.
std::string output_stem(const std::string &out_dir_abs, const std::string &object_abs)
{
    llvm::StringRef top = llvm::sys::path::parent_path(out_dir_abs);
    llvm::StringRef rel(object_abs);
    if (!top.empty() && rel.startswith(top) && rel.size() > top.size() &&
        llvm::sys::path::is_separator(rel[top.size()]))
        rel = rel.drop_front(top.size());
    llvm::SmallString<256> p(out_dir_abs);
    for (auto it = llvm::sys::path::begin(rel), e = llvm::sys::path::end(rel); it != e; ++it) {
        llvm::StringRef part = *it;
        if (part == "/" || part == "." || part.empty()) continue;
        llvm::sys::path::append(p, part == ".." ? "__" : part);
    }
    return std::string(p);
}

// ---- the warnings' flag, -w, -Werror, -Wno-ompdag ----
//
// Clang 14 cannot give a plugin's custom diagnostic a warning group: custom
// IDs bypass every mapping (-w, -Werror, -Wno-...).  The plugin therefore
// reads the compile's own warning options and maps its warnings itself,
// as clang would map a group named "ompdag", and prints the flag name.
struct WarningPolicy {
    bool enabled = true;   // -w and -Wno-ompdag turn it off
    bool as_error = false; // -Werror, -Werror=ompdag
    bool show_flag = true; // -fno-diagnostics-show-option turns it off
};

WarningPolicy warning_policy(const clang::CompilerInstance &ci)
{
    WarningPolicy w;
    const clang::DiagnosticsEngine &d = ci.getDiagnostics();
    const clang::DiagnosticOptions &o = ci.getDiagnosticOpts();
    w.show_flag = o.ShowOptionNames;
    w.as_error = d.getWarningsAsErrors();
    bool no_error_here = false; // -Wno-error=ompdag
    for (const std::string &flag : o.Warnings) {
        if (flag == "ompdag" || flag == "everything")
            w.enabled = true;
        else if (flag == "no-ompdag" || flag == "no-everything")
            w.enabled = false;
        else if (flag == "error=ompdag")
            w.enabled = true, w.as_error = true, no_error_here = false;
        else if (flag == "no-error=ompdag")
            no_error_here = true;
    }
    if (no_error_here) w.as_error = false;
    if (d.getIgnoreAllWarnings()) w.enabled = false; // -w wins, as in clang
    return w;
}

class ExtractConsumer : public clang::ASTConsumer
{
  public:
    ExtractConsumer(clang::CompilerInstance &ci, std::string input, PluginOptions opts)
        : ci_(ci), input_(std::move(input)), opts_(std::move(opts)), policy_(warning_policy(ci))
    {
    }

    void HandleTranslationUnit(clang::ASTContext &) override
    {
        // Named before the front end runs: its -working-directory moves the
        // process's current directory (llvm's real file system chdir()s).
        name_outputs();
        llvm::SmallString<256> cwd;
        llvm::sys::fs::current_path(cwd);
        extract();
        if (!cwd.empty()) llvm::sys::fs::set_current_path(cwd);
    }

  private:
    // graph_ and record_: this compilation's two files, derived from its
    // whole object path (or its input when there is no object).
    void name_outputs()
    {
        const std::string &obj = ci_.getFrontendOpts().OutputFile;
        const std::string &wd = ci_.getFileSystemOpts().WorkingDir;
        std::string object =
            absolute_path(wd, obj.empty() || obj == "-" ? llvm::StringRef(input_) : obj);
        std::string stem = output_stem(absolute_path(wd, opts_.out_dir), object);
        graph_ = stem + ".condag.json";
        record_ = stem + ".refused.json";
        // The front end reads the source by its real path, as `extract -p`
        // does: a/x.c and b/x.c then never share a region key, and the
        // graphs equal extract -p's (annotate matches paths by suffix).
        source_ = absolute_path(wd, input_);
        llvm::SmallString<256> real;
        if (!llvm::sys::fs::real_path(source_, real)) source_ = std::string(real);
    }

    void extract()
    {
        clang::DiagnosticsEngine &diags = ci_.getDiagnostics();
        if (diags.hasErrorOccurred()) {
            // the compile failed: none of this compilation's files may
            // survive stale (only its own: the names are per object)
            llvm::sys::fs::remove(graph_);
            llvm::sys::fs::remove(record_);
            return;
        }
        // Regions are taken from the main file only, and each starts with
        // `#pragma omp parallel` (or an _Pragma, which is refused): a main
        // file without "pragma" has none, and the reparse can be skipped.
        clang::SourceManager &sm = ci_.getSourceManager();
        if (!sm.getBufferData(sm.getMainFileID()).contains("pragma")) {
            write_empty(graph_);
            llvm::sys::fs::remove(record_);
            return;
        }
        std::vector<std::string> args = driver_args(ci_);
        std::vector<const char *> argv;
        for (const auto &s : args)
            argv.push_back(s.c_str());
        ompdag_frontend *fe = ompdag_frontend_create();
        ompdag_error err{};
        ompdag_condag_set *set = nullptr;
        if (!fe) {
            report(clang::DiagnosticsEngine::Error, clang::SourceLocation(), "out of memory");
            return;
        }
        if (opts_.recursion_bound > 0)
            ompdag_frontend_set_recursion_bound(fe, opts_.recursion_bound, &err);
        if (opts_.loop_bound >= 0) ompdag_frontend_set_loop_bound(fe, opts_.loop_bound, &err);
        if (opts_.node_limit > 0) ompdag_frontend_set_node_limit(fe, opts_.node_limit, &err);
        if (opts_.team_size > 0) ompdag_frontend_set_team_size(fe, opts_.team_size, &err);
        for (const std::string &a : opts_.assume) // checked in ParseArgs
            ompdag_frontend_assume(fe, a.c_str(), &err);
        // The build's other units, indexed beside this one (-fplugin-arg-ompdag-compdb).
        std::vector<DbUnit> others;
        if (!opts_.compdb.empty()) {
            std::string why;
            others = read_compdb(opts_.compdb, source_, &why);
            if (!why.empty())
                report(clang::DiagnosticsEngine::Error, clang::SourceLocation(),
                       ("compdb: " + why).c_str());
        }
        std::vector<const char *> sources{source_.c_str()};
        std::vector<std::vector<const char *>> other_argv(others.size());
        std::vector<const char *const *> all_args{argv.data()};
        std::vector<int> nargs{(int)argv.size()};
        for (size_t i = 0; i < others.size(); ++i) {
            for (const std::string &a : others[i].args)
                other_argv[i].push_back(a.c_str());
            sources.push_back(others[i].source.c_str());
            all_args.push_back(other_argv[i].data());
            nargs.push_back((int)other_argv[i].size());
        }
        ompdag_status st = ompdag_frontend_extract_project(
            fe, (int)sources.size(), sources.data(), all_args.data(), nargs.data(), 1, &set, &err);
        for (size_t i = 0; i < ompdag_frontend_diag_count(fe); ++i)
            report_frontend_diag(ompdag_frontend_diag_at(fe, i));
        if (st == OMPDAG_OK) {
            save_graphs(set);
            llvm::sys::fs::remove(record_);
            if (!opts_.wcet_db.empty()) check_deadlines(set);
        } else {
            if (ompdag_frontend_diag_count(fe) == 0)
                report(level(), clang::SourceLocation(), err.message);
            // The regions that did extract are kept (as `extract -p` keeps
            // them); the refusals go to this compilation's own record.
            if (set && ompdag_condag_set_count(set) > 0)
                save_graphs(set);
            else
                llvm::sys::fs::remove(graph_);
            write_refusal_record(fe, err);
        }
        ompdag_condag_set_destroy(set);
        ompdag_frontend_destroy(fe);
    }

    void save_graphs(const ompdag_condag_set *set)
    {
        ompdag_error err{};
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(graph_));
        if (ompdag_condag_set_save_file(set, graph_.c_str(), true, &err) != OMPDAG_OK)
            report(clang::DiagnosticsEngine::Error, clang::SourceLocation(), err.message);
    }

    // DIR/<object>.refused.json: {"format": "ompdag-refusals", "version": 1,
    // "source": ..., "refusals": [{"file", "line", "col", "message"}]} — the
    // errors of this compilation, for `ompdag collect`.  Written to a
    // temporary file and renamed, so a reader never sees half of it.
    void write_refusal_record(const ompdag_frontend *fe, const ompdag_error &err)
    {
        const std::string &wd = ci_.getFileSystemOpts().WorkingDir;
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::json::OStream j(os, 2);
        j.object([&] {
            j.attribute("format", "ompdag-refusals");
            j.attribute("version", 1);
            j.attribute("source", source_);
            j.attributeArray("refusals", [&] {
                bool any = false;
                for (size_t i = 0; i < ompdag_frontend_diag_count(fe); ++i) {
                    const ompdag_frontend_diag *d = ompdag_frontend_diag_at(fe, i);
                    if (d->severity != OMPDAG_DIAG_ERROR) continue;
                    any = true;
                    j.object([&] {
                        j.attribute("file", d->loc.file ? absolute_path(wd, d->loc.file) : source_);
                        j.attribute("line", (int64_t)d->loc.line);
                        j.attribute("col", (int64_t)d->loc.col);
                        j.attribute("message", d->message ? d->message : "");
                    });
                }
                if (!any)
                    j.object([&] {
                        j.attribute("file", source_);
                        j.attribute("line", 0);
                        j.attribute("col", 0);
                        j.attribute("message", err.message);
                    });
            });
        });
        os << "\n";
        os.flush();
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(record_));
        llvm::SmallString<256> tmp;
        int fd = -1;
        std::error_code ec = llvm::sys::fs::createUniqueFile(record_ + ".tmp-%%%%%%", fd, tmp);
        if (!ec) {
            llvm::raw_fd_ostream f(fd, /*shouldClose=*/true);
            f << text;
            f.close();
            ec = f.has_error() ? f.error() : llvm::sys::fs::rename(tmp, record_);
            if (ec) llvm::sys::fs::remove(tmp);
        }
        if (ec)
            report(clang::DiagnosticsEngine::Error, clang::SourceLocation(),
                   record_ + ": cannot write: " + ec.message());
    }

    void write_empty(const std::string &out)
    {
        ompdag_condag_set *set = ompdag_condag_set_create();
        ompdag_error err{};
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(out));
        if (!set || ompdag_condag_set_save_file(set, out.c_str(), true, &err) != OMPDAG_OK)
            report(clang::DiagnosticsEngine::Error, clang::SourceLocation(),
                   set ? err.message : "out of memory");
        ompdag_condag_set_destroy(set);
    }

    clang::DiagnosticsEngine::Level level() const
    {
        return opts_.werror ? clang::DiagnosticsEngine::Error : clang::DiagnosticsEngine::Warning;
    }

    // A warning is mapped as clang maps a group named "ompdag" (see
    // warning_policy); its notes follow it, shown or not.  Errors (the
    // plugin's own, and refusals under -fplugin-arg-ompdag-werror) are
    // never silenced.
    void report(clang::DiagnosticsEngine::Level lv, clang::SourceLocation loc,
                const std::string &msg)
    {
        std::string flag;
        if (lv == clang::DiagnosticsEngine::Note) {
            if (last_dropped_) return;
        } else {
            last_dropped_ = false;
        }
        if (lv == clang::DiagnosticsEngine::Warning) {
            if (!policy_.enabled) {
                last_dropped_ = true;
                return;
            }
            if (policy_.as_error) lv = clang::DiagnosticsEngine::Error;
            if (policy_.show_flag) flag = policy_.as_error ? " [-Werror,-Wompdag]" : " [-Wompdag]";
        }
        clang::DiagnosticsEngine &d = ci_.getDiagnostics();
        unsigned id = d.getCustomDiagID(lv, "ompdag: %0%1");
        d.Report(loc, id) << msg << flag;
    }

    clang::SourceLocation source_loc(const ompdag_loc &l)
    {
        if (!l.file || l.line <= 0) return clang::SourceLocation();
        auto fe = ci_.getFileManager().getFile(l.file);
        if (!fe) return clang::SourceLocation();
        return ci_.getSourceManager().translateFileLineCol(*fe, (unsigned)l.line,
                                                           (unsigned)(l.col > 0 ? l.col : 1));
    }

    // -fplugin-arg-ompdag-wcet=FILE: the regions just extracted, with WCETs
    // measured in earlier runs, against their deadlines (report/violations.c).
    void check_deadlines(const ompdag_condag_set *set)
    {
        ompdag_condag_set *db = nullptr;
        ompdag_error err{};
        if (ompdag_condag_set_load_file(opts_.wcet_db.c_str(), &db, &err) != OMPDAG_OK) {
            report(level(), clang::SourceLocation(), err.message);
            return;
        }
        ompdag_deadline_violation *v = nullptr;
        size_t n = 0;
        if (ompdag_deadline_violations(set, db, opts_.threads, &v, &n, &err) != OMPDAG_OK)
            report(level(), clang::SourceLocation(), err.message);
        for (size_t i = 0; i < n; ++i)
            report(level(), source_loc(v[i].loc), v[i].message);
        free(v);
        ompdag_condag_set_destroy(db);
    }

    void report_frontend_diag(const ompdag_frontend_diag *fd)
    {
        clang::SourceLocation loc = source_loc(fd->loc);
        clang::DiagnosticsEngine::Level lv = fd->severity == OMPDAG_DIAG_ERROR ? level()
                                             : fd->severity == OMPDAG_DIAG_WARNING
                                                 ? clang::DiagnosticsEngine::Warning
                                                 : clang::DiagnosticsEngine::Note;
        report(lv, loc, plugin_syntax(fd->message));
    }

    // The front end's hints name `ompdag extract` options; in a build the
    // same settings are plugin arguments.
    static std::string plugin_syntax(std::string m)
    {
        static const char *const opts[][2] = {
            {"--recursion-bound N", "-fplugin-arg-ompdag-recursion-bound=N"},
            {"--loop-bound N", "-fplugin-arg-ompdag-loop-bound=N"},
            {"--node-limit", "-fplugin-arg-ompdag-node-limit=N"},
            {"--team-size N", "-fplugin-arg-ompdag-team-size=N"},
            {"--assume NAME=VALUE", "-fplugin-arg-ompdag-assume=NAME=VALUE"},
            {"extract the whole project with -p BUILD_DIR",
             "give the plugin the build's compile_commands.json "
             "(-fplugin-arg-ompdag-compdb=BUILD_DIR), or run 'ompdag extract -p BUILD_DIR'"}};
        for (const auto &o : opts)
            for (size_t at; (at = m.find(o[0])) != std::string::npos;)
                m.replace(at, strlen(o[0]), o[1]);
        return m;
    }

    clang::CompilerInstance &ci_;
    std::string input_;
    PluginOptions opts_;
    WarningPolicy policy_;
    bool last_dropped_ = false; // the last warning was silenced: so are its notes
    std::string graph_, record_, source_;
};

class ExtractAction : public clang::PluginASTAction
{
  protected:
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                          llvm::StringRef in_file) override
    {
        return std::make_unique<ExtractConsumer>(ci, in_file.str(), opts_);
    }

    bool ParseArgs(const clang::CompilerInstance &ci, const std::vector<std::string> &args) override
    {
        clang::DiagnosticsEngine &d = ci.getDiagnostics();
        for (const std::string &a : args) {
            llvm::StringRef s(a);
            if (s.consume_front("out=")) {
                opts_.out_dir = s.str();
            } else if (s == "werror") {
                opts_.werror = true;
            } else if (s.consume_front("wcet=")) {
                opts_.wcet_db = s.str();
            } else if (s.consume_front("threads=")) {
                if (s.getAsInteger(10, opts_.threads) || opts_.threads < 1) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad threads '%0'"))
                        << s;
                    return false;
                }
            } else if (s.consume_front("loop-bound=")) {
                if (s.getAsInteger(10, opts_.loop_bound) || opts_.loop_bound < 0) {
                    /* above 4096 the loop stays compact (docs/compact.md) */
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad loop-bound '%0' (0..2147483647)"))
                        << s;
                    return false;
                }
            } else if (s.consume_front("assume=")) {
                // the same syntax and consistency checks as `extract --assume`
                ompdag_frontend *probe = ompdag_frontend_create();
                ompdag_error err{};
                for (const std::string &prev : opts_.assume)
                    if (probe) ompdag_frontend_assume(probe, prev.c_str(), &err);
                bool ok =
                    probe && ompdag_frontend_assume(probe, s.str().c_str(), &err) == OMPDAG_OK;
                ompdag_frontend_destroy(probe);
                if (!ok) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad assume '%0': %1"))
                        << s << (probe ? err.message : "out of memory");
                    return false;
                }
                opts_.assume.push_back(s.str());
            } else if (s.consume_front("compdb=")) {
                opts_.compdb = s.str();
            } else if (s.consume_front("node-limit=")) {
                if (s.getAsInteger(10, opts_.node_limit) || opts_.node_limit < 1) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad node-limit '%0'"))
                        << s;
                    return false;
                }
            } else if (s.consume_front("team-size=")) {
                if (s.getAsInteger(10, opts_.team_size) || opts_.team_size < 1 ||
                    opts_.team_size > 4096) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad team-size '%0' (1..4096)"))
                        << s;
                    return false;
                }
            } else if (s.consume_front("recursion-bound=")) {
                if (s.getAsInteger(10, opts_.recursion_bound) || opts_.recursion_bound < 1) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad recursion-bound '%0'"))
                        << s;
                    return false;
                }
            } else {
                d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                           "ompdag: unknown plugin argument '%0' (known: out=DIR, "
                                           "werror, recursion-bound=N, loop-bound=N, "
                                           "node-limit=N, team-size=N, assume=NAME=VALUE, "
                                           "compdb=DIR, wcet=FILE, threads=N)"))
                    << a;
                return false;
            }
        }
        if (opts_.out_dir.empty()) opts_.out_dir = ".";
        return true;
    }

    ActionType getActionType() override
    {
        return AddAfterMainAction;
    }

  private:
    PluginOptions opts_;
};

} // namespace

static clang::FrontendPluginRegistry::Add<ExtractAction>
    ompdag_plugin_registration("ompdag", "extract OpenMP task graphs (con-DAGs) with ompdag");
