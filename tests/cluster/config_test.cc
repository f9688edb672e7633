// The load pipeline and semantic checks of cluster.yaml (spec/cluster.md
// §1.1, §1.2, §1.4–§1.6): one test per diagnostic code, each matching the
// code, path and message exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>

#include "cluster/desired.h"
#include "cluster/digest.h"
#include "cluster/cluster_dir.h"

namespace omnigraph::cluster {
namespace config_test {

using testing::ClusterDir;
using testing::Describe;
using testing::kMinimalCluster;

// Each field followed by a NUL, as the §1.8 digest inputs are built.
std::string Fields(std::initializer_list<std::string> fields) {
  std::string joined;
  for (const std::string& field : fields) {
    joined += field;
    joined += '\0';
  }
  return joined;
}

// `outcome` holds exactly one diagnostic with `code`, with this severity,
// path and message.
void ExpectOne(const LoadOutcome& outcome, Severity severity, const std::string& code, const std::string& path,
               const std::string& message) {
  const Diagnostics found = testing::WithCode(outcome, code);
  ASSERT_EQ(found.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(found[0].severity, severity);
  EXPECT_EQ(found[0].path, path);
  EXPECT_EQ(found[0].message, message);
}

void ExpectError(const LoadOutcome& outcome, const std::string& code, const std::string& path,
                 const std::string& message) {
  EXPECT_FALSE(outcome.ok());
  ExpectOne(outcome, Severity::kError, code, path, message);
}

// The minimal config with `graph_extra` appended to graph knowledge's
// block and `tail` appended at top level.
std::string MinimalWith(const std::string& graph_extra, const std::string& tail = "") {
  return "version: 1\n"
         "graphs:\n"
         "  knowledge:\n"
         "    schema: people.pg\n" +
         graph_extra + tail;
}

TEST(ClusterConfig, ValidMinimalConfigListsResourcesDigestsAndEdges) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(kMinimalCluster);
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  EXPECT_TRUE(outcome.diagnostics.empty()) << Describe(outcome.diagnostics);
  ASSERT_TRUE(outcome.desired);
  const DesiredCluster& desired = *outcome.desired;
  const std::string schema_digest = Sha256Hex(testing::kPeopleSchema);
  const std::string query_digest = Sha256Hex(testing::kFindPerson);
  EXPECT_EQ(desired.resource_digests.at("schema.knowledge"), schema_digest);
  EXPECT_EQ(desired.resource_digests.at("query.knowledge.find_person"), query_digest);
  EXPECT_EQ(desired.resource_digests.at("policy.base"), Sha256Hex(testing::kEmptyPolicy));
  const std::string composite =
      Fields({"graph", "knowledge", "schema", schema_digest, "query", "find_person", query_digest});
  EXPECT_EQ(desired.resource_digests.at("graph.knowledge"), Sha256Hex(composite));
  ASSERT_EQ(desired.resources.size(), 4u);
  EXPECT_EQ(desired.resources[0].address, "graph.knowledge");
  EXPECT_EQ(desired.resources[0].kind, "graph");
  EXPECT_FALSE(desired.resources[0].path);
  EXPECT_EQ(desired.resources[1].address, "policy.base");
  EXPECT_EQ(desired.resources[1].path, dir.Resolved("base.policy.yaml"));
  EXPECT_EQ(desired.resources[2].address, "query.knowledge.find_person");
  EXPECT_EQ(desired.resources[2].kind, "query");
  EXPECT_EQ(desired.resources[3].address, "schema.knowledge");
  const std::vector<Dependency> edges = {{"policy.base", "graph.knowledge"},
                                         {"query.knowledge.find_person", "graph.knowledge"},
                                         {"query.knowledge.find_person", "schema.knowledge"},
                                         {"schema.knowledge", "graph.knowledge"}};
  EXPECT_EQ(desired.dependencies, edges);
  EXPECT_EQ(desired.policy_bindings.at("policy.base"), std::vector<std::string>{"graph.knowledge"});
  EXPECT_TRUE(desired.state_lock);
  EXPECT_EQ(desired.config_digest.size(), 64u);
}

TEST(ClusterConfig, SchemaOnlyGraphDigestIsTheUpstreamFixtureFormula) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(MinimalWith(""));
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  const std::string schema_digest = Sha256Hex(testing::kPeopleSchema);
  EXPECT_EQ(outcome.desired->resource_digests.at("graph.knowledge"),
            Sha256Hex(Fields({"graph", "knowledge", "schema", schema_digest})));
}

TEST(ClusterConfig, ConfigDigestIgnoresCommentsAndFormatting) {
  ClusterDir dir;
  const std::string block = dir.Load(kMinimalCluster).desired->config_digest;
  const std::string flow =
      "# the same config, in flow style\n"
      "version: 1   # comment\n"
      "graphs: {knowledge: {schema: people.pg, queries: {find_person: {file: people.gq}}}}\n"
      "policies:\n"
      "  base: {file: base.policy.yaml, applies_to: [knowledge]}\n";
  EXPECT_EQ(dir.Load(flow).desired->config_digest, block);
  const std::string renamed = "version: 1\n"
                              "graphs: {knowledge: {schema: ./people.pg, queries: {find_person: {file: people.gq}}}}\n"
                              "policies:\n"
                              "  base: {file: base.policy.yaml, applies_to: [knowledge]}\n";
  EXPECT_NE(dir.Load(renamed).desired->config_digest, block) << "the spelling as written enters the digest";
}

TEST(ClusterConfig, ConfigDirNotFound) {
  const std::string missing = "/nonexistent/omnigraph-cluster-dir";
  const LoadOutcome outcome = LoadDesiredCluster(missing);
  ASSERT_EQ(outcome.diagnostics.size(), 1u);
  ExpectError(outcome, "config_dir_not_found", missing, "`--config` must point at a directory containing cluster.yaml");
  EXPECT_FALSE(outcome.desired);
}

TEST(ClusterConfig, ClusterConfigReadError) {
  ClusterDir dir;
  const LoadOutcome outcome = LoadDesiredCluster(dir.path());
  ASSERT_EQ(outcome.diagnostics.size(), 1u);
  ExpectError(outcome, "cluster_config_read_error", "cluster.yaml",
              "could not read cluster.yaml: No such file or directory");
}

TEST(ClusterConfig, DuplicateYamlKeyTopLevelAndNested) {
  ClusterDir dir;
  LoadOutcome outcome = dir.Load("version: 1\nversion: 1\n");
  ExpectError(outcome, "duplicate_yaml_key", "version", "duplicate YAML key `version` on line 2");
  EXPECT_FALSE(outcome.desired) << "a pre-scan error stops before the typed parse";

  outcome = dir.Load(MinimalWith("    schema: other.pg\n"));
  ExpectError(outcome, "duplicate_yaml_key", "graphs.knowledge.schema", "duplicate YAML key `schema` on line 5");
}

TEST(ClusterConfig, DuplicateYamlKeyInsideSequenceItemsAndQuotes) {
  ClusterDir dir;
  // Each `- ` item is its own scope; a quoted `#` is not a comment.
  const LoadOutcome outcome = dir.Load(MinimalWith(
      "    external_blobs:\n"
      "      allow:\n"
      "        - base: \"s3://bucket/#not-a-comment\"\n"
      "          scope: server_safe\n"
      "        - base: s3://bucket/b\n"
      "          scope: server_safe\n"
      "          scope: embedded_only\n"));
  ASSERT_EQ(outcome.diagnostics.size(), 1u) << Describe(outcome.diagnostics);
  ExpectError(outcome, "duplicate_yaml_key", "graphs.knowledge.external_blobs.allow[].scope",
              "duplicate YAML key `scope` on line 11");
}

TEST(ClusterConfig, FuturePhaseField) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(MinimalWith("", "ui:\n  port: 3000\n"));
  ASSERT_EQ(outcome.diagnostics.size(), 1u) << Describe(outcome.diagnostics);
  ExpectError(outcome, "future_phase_field", "ui", "`ui` is reserved for a later cluster-control phase");
  for (const char* key : {"apply", "env_file", "pipelines", "embeddings", "aliases", "bindings"}) {
    const LoadOutcome reserved = dir.Load(MinimalWith("", std::string(key) + ": {}\n"));
    ExpectError(reserved, "future_phase_field", key,
                std::string("`") + key + "` is reserved for a later cluster-control phase");
  }
}

TEST(ClusterConfig, RemovedStreamingDeclaration) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(MinimalWith("    streaming: {}\n"));
  ExpectError(outcome, "removed_streaming_declaration", "graphs.knowledge.streaming",
              "`streaming` was removed: the MemWAL firehose is gone and graphs no longer carry a stream profile. "
              "Delete this key. A graph written by a development build that had it must be exported with that "
              "build and rebuilt.");
}

TEST(ClusterConfig, InvalidClusterYamlNamesTheUnknownField) {
  ClusterDir dir;
  LoadOutcome outcome = dir.Load(MinimalWith("    uri: /tmp/g\n"));
  ExpectError(outcome, "invalid_cluster_yaml", "cluster.yaml",
              "could not parse cluster.yaml: graphs.knowledge: unknown field `uri`, expected one of `schema`, "
              "`queries`, `embedding_provider`, `external_blobs` at line 5 column 5");
  outcome = dir.Load(MinimalWith("", "providers:\n  search: {}\n"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.diagnostics[0].message.find("unknown field `search`"), std::string::npos);
  outcome = dir.Load("graphs: {}\n");
  ExpectError(outcome, "invalid_cluster_yaml", "cluster.yaml",
              "could not parse cluster.yaml: missing field `version` at line 1 column 1");
  outcome = dir.Load("version: \"1\"\n");
  EXPECT_EQ(testing::WithCode(outcome, "invalid_cluster_yaml").size(), 1u) << "a quoted version is a string";
  outcome = dir.Load("version: 1\nstate:\n  lock: yes\n");
  EXPECT_EQ(testing::WithCode(outcome, "invalid_cluster_yaml").size(), 1u) << "YAML 1.2 booleans only";
}

TEST(ClusterConfig, UnsupportedClusterConfigVersion) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 2\n"), "unsupported_cluster_config_version", "version",
              "unsupported cluster config version 2; this build supports version 1");
}

TEST(ClusterConfig, EmptyMetadataName) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 1\nmetadata:\n  name: \"  \"\n"), "empty_metadata_name", "metadata.name",
              "metadata.name must not be empty when provided");
  EXPECT_TRUE(dir.Load("version: 1\nmetadata:\n  name: spike\n").ok());
}

TEST(ClusterConfig, InvalidStorageRoot) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 1\nstorage: \" \"\n"), "invalid_storage_root", "storage",
              "storage must be a non-empty path or URI (for example s3://bucket/prefix or az://container/prefix) when "
              "provided");
  ExpectError(dir.Load("version: 1\nstorage: s3://\n"), "invalid_storage_root", "storage",
              "storage s3:// URI must name a bucket");
  const LoadOutcome relocated = dir.Load("version: 1\nstorage: \" s3://bucket/prefix/ \"\n");
  ASSERT_TRUE(relocated.ok()) << Describe(relocated.diagnostics);
  EXPECT_EQ(relocated.desired->storage_root, "s3://bucket/prefix");
}

TEST(ClusterConfig, UnsupportedStateBackendAndLockSetting) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 1\nstate:\n  backend: s3://bucket\n"), "unsupported_state_backend", "state.backend",
              "Stage 2C supports only omitted state.backend or `cluster`");
  const LoadOutcome unlocked = dir.Load("version: 1\nstate:\n  backend: cluster\n  lock: false\n");
  ASSERT_TRUE(unlocked.ok()) << Describe(unlocked.diagnostics);
  EXPECT_FALSE(unlocked.desired->state_lock);
}

TEST(ClusterConfig, InvalidResourceIdForEveryKind) {
  ClusterDir dir;
  const std::string tail = " must start with a letter or `_` and contain only ASCII letters, digits, `_`, or `-`";
  ExpectError(dir.Load("version: 1\ngraphs:\n  9lives:\n    schema: people.pg\n"), "invalid_resource_id",
              "graphs.9lives", "graph id `9lives`" + tail);
  ExpectError(dir.Load(MinimalWith("    queries:\n      \"find.person\":\n        file: people.gq\n")),
              "invalid_resource_id", "graphs.knowledge.queries.find.person", "query name `find.person`" + tail);
  ExpectError(dir.Load(MinimalWith("", "policies:\n  \"bad policy\":\n    file: base.policy.yaml\n    applies_to: "
                                       "[knowledge]\n")),
              "invalid_resource_id", "policies.bad policy", "policy name `bad policy`" + tail);
  ExpectError(dir.Load("version: 1\nproviders:\n  embedding:\n    -x:\n      kind: mock\n"), "invalid_resource_id",
              "providers.embedding.-x", "embedding provider name `-x`" + tail);
  EXPECT_TRUE(IsValidResourceId("_a-1"));
  EXPECT_FALSE(IsValidResourceId(""));
}

TEST(ClusterConfig, EmbeddingProviderChecks) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 1\nproviders:\n  embedding:\n    e:\n      kind: cohere\n      api_key: ${KEY}\n"),
              "invalid_embedding_provider", "providers.embedding.e",
              "unknown embedding provider 'cohere' (expected openai-compatible|openai|gemini|mock)");
  ExpectError(dir.Load("version: 1\nproviders:\n  embedding:\n    e:\n      kind: openai\n"),
              "embedding_api_key_required", "providers.embedding.e.api_key",
              "non-mock embedding providers must set api_key to a ${NAME} env reference");
  ExpectError(dir.Load("version: 1\nproviders:\n  embedding:\n    e:\n      provider: gemini\n      api_key: sk-123\n"),
              "embedding_api_key_inline", "providers.embedding.e.api_key",
              "embedding api_key must be a ${NAME} env reference, not an inline secret");
  ExpectError(dir.Load("version: 1\nproviders:\n  embedding:\n    e:\n      kind: mock\n      api_key: inline\n"),
              "embedding_api_key_inline", "providers.embedding.e.api_key",
              "embedding api_key must be a ${NAME} env reference, not an inline secret");
  const LoadOutcome mock = dir.Load("version: 1\nproviders:\n  embedding:\n    e:\n      kind: mock\n");
  ASSERT_TRUE(mock.ok()) << Describe(mock.diagnostics);
  EXPECT_EQ(mock.desired->resource_digests.at("provider.embedding.e"),
            Sha256Hex(Fields({"embedding-provider"}) + "{\"kind\":\"mock\"}"));
}

TEST(ClusterConfig, GraphEmbeddingProviderReferences) {
  ClusterDir dir;
  const std::string providers = "providers:\n  embedding:\n    e:\n      kind: mock\n";
  ExpectError(dir.Load(MinimalWith("    embedding_provider: policy.e\n", providers)), "wrong_kind_reference",
              "graphs.knowledge.embedding_provider",
              "embedding_provider expects a providers.embedding ref or bare provider name, got `policy.e`");
  ExpectError(dir.Load(MinimalWith("    embedding_provider: other\n", providers)),
              "dangling_embedding_provider_reference", "graphs.knowledge.embedding_provider",
              "graph references embedding provider `other`, but no providers.embedding.other profile is declared");
  for (const char* reference : {"e", "provider.embedding.e"}) {
    const LoadOutcome bound = dir.Load(MinimalWith(std::string("    embedding_provider: ") + reference + "\n", providers));
    ASSERT_TRUE(bound.ok()) << Describe(bound.diagnostics);
    const Dependency edge{"graph.knowledge", "provider.embedding.e"};
    EXPECT_NE(std::find(bound.desired->dependencies.begin(), bound.desired->dependencies.end(), edge),
              bound.desired->dependencies.end());
    const std::string schema_digest = Sha256Hex(testing::kPeopleSchema);
    const std::string provider_digest = bound.desired->resource_digests.at("provider.embedding.e");
    EXPECT_EQ(bound.desired->resource_digests.at("graph.knowledge"),
              Sha256Hex(Fields({"graph", "knowledge", "schema", schema_digest, "embedding_provider",
                                "provider.embedding.e", provider_digest})));
  }
}

TEST(ClusterConfig, SchemaFileMissingParseAndCatalogErrors) {
  ClusterDir dir;
  ExpectError(dir.Load("version: 1\ngraphs:\n  g:\n    schema: absent.pg\n"), "schema_file_missing", "graphs.g.schema",
              "could not read schema file '" + dir.Resolved("absent.pg") + "': No such file or directory");
  dir.Write("broken.pg", "node {\n");
  const LoadOutcome broken = dir.Load("version: 1\ngraphs:\n  g:\n    schema: broken.pg\n");
  ASSERT_EQ(testing::WithCode(broken, "schema_parse_error").size(), 1u) << Describe(broken.diagnostics);
  EXPECT_EQ(testing::WithCode(broken, "schema_parse_error")[0].path, "graphs.g.schema");
  EXPECT_EQ(testing::WithCode(broken, "schema_parse_error")[0].message.rfind("parse error: ", 0), 0u);
  dir.Write("dangling.pg", "node Person {\n    name: String @key\n}\nedge Knows: Person -> Nobody\n");
  const LoadOutcome dangling = dir.Load("version: 1\ngraphs:\n  g:\n    schema: dangling.pg\n");
  ASSERT_EQ(testing::WithCode(dangling, "schema_catalog_error").size(), 1u) << Describe(dangling.diagnostics);
  EXPECT_EQ(testing::WithCode(dangling, "schema_catalog_error")[0].message.rfind("catalog error: ", 0), 0u);
}

TEST(ClusterConfig, PolicyBindingChecks) {
  ClusterDir dir;
  auto with_policy = [](const std::string& applies_to) {
    return MinimalWith("", "policies:\n  base:\n    file: base.policy.yaml\n    applies_to: " + applies_to + "\n");
  };
  ExpectError(dir.Load(with_policy("[]")), "policy_missing_applies_to", "policies.base.applies_to",
              "policy.applies_to must name `cluster` or at least one graph");
  ExpectError(dir.Load(with_policy("[schema.knowledge]")), "wrong_kind_reference", "policies.base.applies_to[0]",
              "policy applies_to expects graph refs or `cluster`, got `schema.knowledge`");
  ExpectError(dir.Load(with_policy("[knowledge, graph.other]")), "dangling_graph_reference",
              "policies.base.applies_to[1]", "policy references graph `other`, but no graph with that id is declared");
  const LoadOutcome mixed = dir.Load(with_policy("[cluster, knowledge]"));
  ASSERT_EQ(mixed.diagnostics.size(), 1u) << Describe(mixed.diagnostics);
  ExpectError(mixed, "policy_mixed_binding_kinds", "policies.base.applies_to",
              "one policy bundle cannot bind both `cluster` and graph scopes; split server and graph rules into "
              "separate bundles");
  const LoadOutcome normalised = dir.Load(with_policy("[graph.knowledge, knowledge]"));
  ASSERT_TRUE(normalised.ok()) << Describe(normalised.diagnostics);
  EXPECT_EQ(normalised.desired->policy_bindings.at("policy.base"), std::vector<std::string>{"graph.knowledge"});
}

TEST(ClusterConfig, DuplicatePolicyBinding) {
  ClusterDir dir;
  ExpectError(dir.Load(MinimalWith("", "policies:\n"
                                       "  base:\n    file: base.policy.yaml\n    applies_to: [knowledge]\n"
                                       "  second:\n    file: base.policy.yaml\n    applies_to: [graph.knowledge]\n")),
              "duplicate_policy_binding", "policies.second.applies_to",
              "policy bundles `base` and `second` both bind `graph.knowledge`; merge them or leave exactly one "
              "bundle for that scope");
}

TEST(ClusterConfig, PolicyFileMissing) {
  ClusterDir dir;
  ExpectError(dir.Load(MinimalWith("", "policies:\n  base:\n    file: absent.yaml\n    applies_to: [knowledge]\n")),
              "policy_file_missing", "policies.base.file",
              "could not read policy file '" + dir.Resolved("absent.yaml") + "': No such file or directory");
}

TEST(ClusterConfig, PolicyInvalidComesFromTheInjectedCompiler) {
  ClusterDir dir;
  LoadOptions options;
  PolicyBundleKind seen_kind = PolicyBundleKind::kServer;
  std::string seen_graph;
  options.check_policy_bundle = [&](std::string_view, PolicyBundleKind kind,
                                    std::string_view graph_id) -> std::optional<std::string> {
    seen_kind = kind;
    seen_graph = std::string(graph_id);
    return std::string("rule uses server-scoped action `graph_list` in a graph bundle");
  };
  ExpectError(dir.Load(kMinimalCluster, options), "policy_invalid", "policies.base.file",
              "policy file '" + dir.Resolved("base.policy.yaml") +
                  "' is invalid: rule uses server-scoped action `graph_list` in a graph bundle");
  EXPECT_EQ(seen_kind, PolicyBundleKind::kGraph);
  EXPECT_EQ(seen_graph, "knowledge");
}

TEST(ClusterConfig, ExternalBlobBasesAreNormalisedAndHashed) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(MinimalWith(
      "    external_blobs:\n      allow:\n        - {base: S3://Assets-Bucket/knowledge, scope: server_safe}\n"));
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  const std::string policy_json = R"({"mode":"allow","bases":[{"uri":"s3://assets-bucket/knowledge/","scope":"server_safe"}]})";
  ASSERT_EQ(outcome.desired->graphs.size(), 1u);
  EXPECT_EQ(PersistedExternalBlobPolicyJson(outcome.desired->graphs[0].external_blob_policy), policy_json);
  const std::string schema_digest = Sha256Hex(testing::kPeopleSchema);
  EXPECT_EQ(outcome.desired->resource_digests.at("graph.knowledge"),
            Sha256Hex(Fields({"graph", "knowledge", "schema", schema_digest, "external_blob_policy", policy_json})));
  EXPECT_TRUE(ValidateOnlyWarnings(*outcome.desired).empty());
}

TEST(ClusterConfig, InvalidExternalBlobBase) {
  ClusterDir dir;
  auto allow = [](const std::string& base, const std::string& scope) {
    return MinimalWith("    external_blobs:\n      allow:\n        - {base: \"" + base + "\", scope: " + scope + "}\n");
  };
  const std::string path = "graphs.knowledge.external_blobs.allow[0].base";
  ExpectError(dir.Load(allow("s3://user@bucket/x", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 's3://user@bucket/x' must not carry credentials");
  ExpectError(dir.Load(allow("s3://bucket/a/../b", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 's3://bucket/a/../b' must not contain `.` or `..` segments");
  ExpectError(dir.Load(allow("s3://bucket/a?x=1", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 's3://bucket/a?x=1' must not carry a query or fragment");
  ExpectError(dir.Load(allow("s3://bucket:9000/a", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 's3://bucket:9000/a' must not carry a port");
  ExpectError(dir.Load(allow("https://host/a", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 'https://host/a' must be an absolute s3:// or file:// URI");
  ExpectError(dir.Load(allow("file:///tmp", "server_safe")), "invalid_external_blob_base", path,
              "external blob base 'file:///tmp' is a file:// base and cannot be server_safe");
  ExpectError(dir.Load(allow("s3://bucket/a", "embedded_only")), "invalid_external_blob_base", path,
              "external blob base 's3://bucket/a': scope `embedded_only` is not supported by this build");
}

TEST(ClusterConfig, InvalidExternalBlobPolicyForOverlappingBases) {
  ClusterDir dir;
  ExpectError(dir.Load(MinimalWith("    external_blobs:\n      allow:\n"
                                   "        - {base: s3://bucket/a/b, scope: server_safe}\n"
                                   "        - {base: s3://BUCKET/a, scope: server_safe}\n")),
              "invalid_external_blob_policy", "graphs.knowledge.external_blobs.allow",
              "external blob bases 's3://bucket/a/' and 's3://bucket/a/b/' overlap");
}

TEST(ClusterConfig, ValidateWarnsOncePerDenyGraph) {
  ClusterDir dir;
  const LoadOutcome outcome = dir.Load(kMinimalCluster);
  const Diagnostics warnings = ValidateOnlyWarnings(*outcome.desired);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], WarningDiagnostic("external_blob_ingress_default_deny", "graphs.knowledge.external_blobs",
                                           "graph `knowledge` declares no external_blobs allow-list, so external blob "
                                           "ingress is denied"));
}

}  // namespace config_test
}  // namespace omnigraph::cluster
