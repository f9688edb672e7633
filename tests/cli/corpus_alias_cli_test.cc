// The industry-intel cookbook's Quick Start query, word for word
// (../shared/corpus/industry-intel/README.md): `omnigraph query --alias
// pattern-signals pat-sovereign-ai` run in the cookbook directory, whose
// omnigraph.yaml aliases the served graph of `cli.graph` (surface.md §5.2
// `alias NAME [ARGS…]`), against our server on a copy of the cookbook.
// Runs when the shared folder (OMNIGRAPH_SHARED_DIR) is present.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/server_process.h"

namespace omnigraph::testing {
namespace corpus_alias_cli_test {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Sets an environment variable for the CLI runs of one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A copy of the cookbook after its Quick Start (import, plan, apply, load),
// served by our server with a reader's token (the cookbook binds policy
// bundles, so every request needs a bearer); its omnigraph.yaml's graph
// URI points at that server.
class CorpusAliasCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    const fs::path cookbook = fs::path(OMNIGRAPH_SHARED_DIR) / "corpus" / "industry-intel";
    if (!fs::exists(cookbook / "omnigraph.yaml")) GTEST_SKIP() << "no shared corpus";
    copy_ = (fs::path(dir_.path()) / "industry-intel").string();
    fs::copy(cookbook, copy_, fs::copy_options::recursive);
    // The shared files are read-only; the copy is ours to write.
    fs::permissions(copy_, fs::perms::owner_all, fs::perm_options::add);
    for (const auto& entry : fs::recursive_directory_iterator(copy_)) {
      fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write |
                                        (entry.is_directory() ? fs::perms::owner_exec : fs::perms::none),
                      fs::perm_options::add);
    }
    for (const char* step : {"cluster import --config .", "cluster plan --config .",
                             "cluster apply --config . --as tester",
                             "load --data seed.jsonl --mode overwrite graphs/spike.omni --quiet"}) {
      CliRun run = RunCli(copy_, step);
      ASSERT_EQ(run.rc, 0) << step << "\n" << run.out << run.err;
    }
    server_ = std::make_unique<ServerProcess>(
        copy_, std::vector<std::string>{},
        std::vector<std::pair<std::string, std::string>>{
            {"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"act-reader":"reader-token"})"}});
    ASSERT_FALSE(server_->url().empty()) << server_->error();
    const fs::path config = fs::path(copy_) / "omnigraph.yaml";
    std::string text = ReadText(config);
    const std::string documented = "http://127.0.0.1:8080";
    const size_t at = text.find(documented);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, documented.size(), server_->url());
    std::ofstream(config, std::ios::binary | std::ios::trunc) << text;
  }

  CliRun InCookbook(const std::string& args) { return RunCli(copy_, args); }

  std::string copy_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(CorpusAliasCliTest, QuickStartAliasQueryWordForWord) {
  // graphs.local_server.bearer_token_env: OMNIGRAPH_BEARER_TOKEN.
  ScopedEnv token("OMNIGRAPH_BEARER_TOKEN", std::string("reader-token"));
  CliRun quick_start = InCookbook("query --alias pattern-signals pat-sovereign-ai");
  ASSERT_EQ(quick_start.rc, 0) << quick_start.err;
  EXPECT_EQ(quick_start.err, "");
  // The hidden synonym is `alias`, which is the stored query on the served
  // graph, printed as `query NAME --server … --graph …` prints it (the
  // alias names no format; cli.output_format is table).
  CliRun alias = InCookbook("alias pattern-signals pat-sovereign-ai");
  EXPECT_EQ(alias.rc, 0) << alias.err;
  EXPECT_EQ(alias.out, quick_start.out);
  CliRun stored = InCookbook("query pattern_signals --server " + server_->url() +
                             " --graph spike --params '{\"slug\":\"pat-sovereign-ai\"}' --format table");
  EXPECT_EQ(stored.rc, 0) << stored.err;
  EXPECT_EQ(stored.out, quick_start.out);
  EXPECT_EQ(quick_start.out.rfind("3 rows from branch main via pattern_signals\n", 0), 0u) << quick_start.out;
  EXPECT_NE(quick_start.out.find("\nsig-zylon-onprem-ai "), std::string::npos) << quick_start.out;

  CliRun as_json = InCookbook("query --alias pattern-signals pat-sovereign-ai --json");
  ASSERT_EQ(as_json.rc, 0) << as_json.err;
  const nlohmann::json out = nlohmann::json::parse(as_json.out);
  EXPECT_EQ(out["query_name"], "pattern_signals");
  EXPECT_EQ(out["row_count"], 3);

  // An alias with its own format (kv), and the weekly loop's spelling.
  CliRun pattern = InCookbook("query --alias pattern pat-sovereign-ai");
  EXPECT_EQ(pattern.rc, 0) << pattern.err;
  EXPECT_EQ(pattern.out.rfind("1 rows from branch main via get_pattern\nrow 1\np.slug: pat-sovereign-ai\n", 0), 0u)
      << pattern.out;
  EXPECT_EQ(pattern.out, InCookbook("query get_pattern --server " + server_->url() +
                                    " --graph spike --params '{\"slug\":\"pat-sovereign-ai\"}' --format kv")
                             .out);
  CliRun triage = InCookbook("query --alias triage");
  EXPECT_EQ(triage.rc, 0) << triage.err;
  EXPECT_EQ(triage.out.rfind("0 rows from branch main via orphan_signals\n", 0), 0u) << triage.out;

  // The cookbook's mutation aliases are not reads.
  CliRun mutation = InCookbook("query --alias add-company co-x X");
  EXPECT_EQ(mutation.rc, 2);
  EXPECT_EQ(mutation.err, "error: alias 'add-company' runs `change`; `alias` runs stored read queries only\n");
  CliRun unknown = InCookbook("query --alias nope");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_EQ(unknown.err.rfind("error: alias 'nope' is not in the operator config (none was found) (it defines no "
                              "aliases) or omnigraph.yaml (aliases: add-artifact, ",
                              0),
            0u)
      << unknown.err;
}

// Without the token graphs.local_server.bearer_token_env names, the
// secured server refuses the read.
TEST_F(CorpusAliasCliTest, AliasWithoutTheTokenIsRefused) {
  ScopedEnv no_token("OMNIGRAPH_BEARER_TOKEN", std::nullopt);
  CliRun anonymous = InCookbook("query --alias pattern-signals pat-sovereign-ai");
  EXPECT_EQ(anonymous.rc, 1);
  EXPECT_EQ(anonymous.out, "");
  EXPECT_EQ(anonymous.err, "error: missing bearer token\n");
}

}  // namespace corpus_alias_cli_test
}  // namespace omnigraph::testing
