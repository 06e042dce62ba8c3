// plugin/plugin.cpp — the `clang -fplugin` entry point, a thin C++ shim over
// the C front end (include/ompdag/frontend.h).  Clang's plugin ABI is C++
// only; everything else is C.
//
//   clang -fopenmp -fplugin=libompdag_plugin.so -fplugin-arg-ompdag-out=DIR
//         [-fplugin-arg-ompdag-werror] [-fplugin-arg-ompdag-recursion-bound=N]
//         [-fplugin-arg-ompdag-loop-bound=N] [-fplugin-arg-ompdag-node-limit=N]
//         [-fplugin-arg-ompdag-assume=NAME=VALUE]...
//         [-fplugin-arg-ompdag-wcet=ANNOTATED.json [-fplugin-arg-ompdag-threads=M]] -c x.c
//
// The action runs after the main action (AddAfterMainAction), so code
// generation is untouched.  At the end of the translation unit it rebuilds a
// driver command line from the compiler's own preprocessor, header-search,
// language and target options, calls ompdag_frontend_extract() on the same
// input, and writes DIR/<object path>.condag.json (one file per compilation,
// so compiling one source several times with different -D flags into
// different objects keeps every graph; DIR/<input path>.condag.json when
// there is no object, e.g. -fsyntax-only).  Front-end refusals become
// clang diagnostics at their source location: warnings, or errors with
// -fplugin-arg-ompdag-werror.
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

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
    std::string wcet_db; // annotated graphs of earlier runs: check deadlines at build time
    int threads = 0;     // m for that check; 0: each graph's own "threads"
    std::vector<std::string> assume; // NAME=VALUE: the input the graphs are built for
};

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

// DIR/<path>.condag.json, with "/" prefixes and ".." parts made safe.
std::string output_path(const std::string &dir, llvm::StringRef input)
{
    llvm::SmallString<256> p(dir);
    for (auto it = llvm::sys::path::begin(input), e = llvm::sys::path::end(input); it != e; ++it) {
        llvm::StringRef part = *it;
        if (part == "/" || part == "." || part.empty()) continue;
        llvm::sys::path::append(p, part == ".." ? "__" : part);
    }
    return std::string(p) + ".condag.json";
}

class ExtractConsumer : public clang::ASTConsumer
{
  public:
    ExtractConsumer(clang::CompilerInstance &ci, std::string input, PluginOptions opts)
        : ci_(ci), input_(std::move(input)), opts_(std::move(opts))
    {
    }

    void HandleTranslationUnit(clang::ASTContext &) override
    {
        clang::DiagnosticsEngine &diags = ci_.getDiagnostics();
        const std::string &obj = ci_.getFrontendOpts().OutputFile;
        std::string out =
            output_path(opts_.out_dir,
                        obj.empty() || obj == "-" ? llvm::StringRef(input_) : llvm::StringRef(obj));
        if (diags.hasErrorOccurred()) {
            llvm::sys::fs::remove(out); // the compile failed: no stale graph
            return;
        }
        // Regions are taken from the main file only, and each starts with
        // `#pragma omp parallel` (or an _Pragma, which is refused): a main
        // file without "pragma" has none, and the reparse can be skipped.
        clang::SourceManager &sm = ci_.getSourceManager();
        if (!sm.getBufferData(sm.getMainFileID()).contains("pragma")) {
            write_empty(out);
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
        for (const std::string &a : opts_.assume) // checked in ParseArgs
            ompdag_frontend_assume(fe, a.c_str(), &err);
        ompdag_status st =
            ompdag_frontend_extract(fe, input_.c_str(), argv.data(), (int)argv.size(), &set, &err);
        for (size_t i = 0; i < ompdag_frontend_diag_count(fe); ++i)
            report_frontend_diag(ompdag_frontend_diag_at(fe, i));
        if (st == OMPDAG_OK) {
            llvm::sys::fs::create_directories(llvm::sys::path::parent_path(out));
            if (ompdag_condag_set_save_file(set, out.c_str(), true, &err) != OMPDAG_OK)
                report(clang::DiagnosticsEngine::Error, clang::SourceLocation(), err.message);
            if (!opts_.wcet_db.empty()) check_deadlines(set);
        } else {
            llvm::sys::fs::remove(out); // no stale graph survives a refusal
            if (ompdag_frontend_diag_count(fe) == 0)
                report(level(), clang::SourceLocation(), err.message);
        }
        ompdag_condag_set_destroy(set);
        ompdag_frontend_destroy(fe);
    }

  private:
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

    void report(clang::DiagnosticsEngine::Level lv, clang::SourceLocation loc,
                const std::string &msg)
    {
        clang::DiagnosticsEngine &d = ci_.getDiagnostics();
        unsigned id = d.getCustomDiagID(lv, "ompdag: %0");
        d.Report(loc, id) << msg;
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
            {"--assume NAME=VALUE", "-fplugin-arg-ompdag-assume=NAME=VALUE"},
            {"extract the whole project with -p BUILD_DIR",
             "run 'ompdag extract -p BUILD_DIR' on the whole build (the plugin sees one file)"}};
        for (const auto &o : opts)
            for (size_t at; (at = m.find(o[0])) != std::string::npos;)
                m.replace(at, strlen(o[0]), o[1]);
        return m;
    }

    clang::CompilerInstance &ci_;
    std::string input_;
    PluginOptions opts_;
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
                if (s.getAsInteger(10, opts_.loop_bound) || opts_.loop_bound < 0 ||
                    opts_.loop_bound > 4096) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad loop-bound '%0' (0..4096)"))
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
            } else if (s.consume_front("node-limit=")) {
                if (s.getAsInteger(10, opts_.node_limit) || opts_.node_limit < 1) {
                    d.Report(d.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                               "ompdag: bad node-limit '%0'"))
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
                                           "node-limit=N, assume=NAME=VALUE, wcet=FILE, "
                                           "threads=N)"))
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
