// The JSON of write receipts and metadata (api/wire/report_json.h): member
// order, nulls and numbers exactly as the CLI prints them with --json.
#include "api/wire/report_json.h"

#include <gtest/gtest.h>

namespace omnigraph::api::wire {
namespace report_json_test {

graph::CommitRecord Commit() {
  graph::CommitRecord commit;
  commit.id = "01J00000000000000000000002";
  commit.manifest_version = 2;
  commit.parent_id = "01J00000000000000000000001";
  commit.actor_id = "ann";
  commit.created_at_us = 1700000000000000;
  return commit;
}

TEST(ReportJson, CommitListsEveryFieldInOrderWithNullsForMainAndAbsentParents) {
  EXPECT_EQ(CommitJson(Commit()).dump(),
            R"({"graph_commit_id":"01J00000000000000000000002","graph_branch":null,"graph_manifest_version":2,)"
            R"("parent_commit_id":"01J00000000000000000000001","merged_parent_commit_id":null,"actor_id":"ann",)"
            R"("created_at":1700000000000000,"published":true})");
  EXPECT_EQ(CommitListJson({}).dump(), R"({"commits":[]})");
  EXPECT_EQ(CommitListJson({Commit(), Commit()})["commits"].size(), 2u);
}

TEST(ReportJson, ProposalsSayTheyAreUnpublishedAndUnattachedOnesNameTheirRoot) {
  EXPECT_EQ(CommitViewJson(exec::CommitView{Commit(), false, std::nullopt}).dump(),
            R"({"graph_commit_id":"01J00000000000000000000002","graph_branch":null,"graph_manifest_version":2,)"
            R"("parent_commit_id":"01J00000000000000000000001","merged_parent_commit_id":null,"actor_id":"ann",)"
            R"("created_at":1700000000000000,"published":false})");
  Json unattached = CommitViewJson(exec::CommitView{Commit(), false, "01J00000000000000000000009"});
  EXPECT_EQ(unattached["unattached_root"], "01J00000000000000000000009");
  EXPECT_EQ(unattached["published"], false);
  EXPECT_EQ(CommitDropJson("01J00000000000000000000009", {"01J0000000000000000000000A", "01J00000000000000000000009"})
                .dump(),
            R"({"graph_commit_id":"01J00000000000000000000009",)"
            R"("dropped":["01J0000000000000000000000A","01J00000000000000000000009"]})");
  MutationReport report;
  report.commit = Commit();
  report.published = false;
  report.unattached_root = "01J00000000000000000000002";
  EXPECT_EQ(MutationReportJson(report, "ann")["commit"]["unattached_root"], "01J00000000000000000000002");
}

TEST(ReportJson, MutationReceiptHasANullCommitWhenNothingChanged) {
  MutationReport report;
  report.query_name = "touch";
  report.affected_nodes = 0;
  EXPECT_EQ(MutationReportJson(report, std::nullopt).dump(),
            R"({"branch":"main","query_name":"touch","affected_nodes":0,"affected_edges":0,"actor_id":null,)"
            R"("commit":null})");
  report.commit = Commit();
  report.affected_nodes = 1;
  Json receipt = MutationReportJson(report, "ann");
  EXPECT_EQ(receipt["actor_id"], "ann");
  EXPECT_EQ(receipt["commit"], CommitJson(Commit()));
}

TEST(ReportJson, LoadReceiptCountsEachTypeAndNamesTheGraph) {
  LoadReport report;
  report.mode = LoadMode::kAppend;
  report.nodes = {{"Person", 2}};
  report.total_entities = 2;
  report.commit = Commit();
  EXPECT_EQ(LoadReportJson(report, "/graphs/g").dump(),
            R"({"uri":"/graphs/g","branch":"main","mode":"append","branch_created":false,)"
            R"("nodes":[{"name":"Person","entities_loaded":2}],"edges":[],"total_entities":2,"commit":)" +
                CommitJson(Commit()).dump() + "}");
}

TEST(ReportJson, SnapshotListsDatasetsOnTheirNativeMain) {
  SnapshotInfo info;
  info.graph_manifest_version = 3;
  info.datasets.push_back({"node", "Person", "nodes/1", 4, 2});
  EXPECT_EQ(SnapshotJson(info).dump(),
            R"({"graph_branch":"main","graph_manifest_version":3,"internal_schema_version":)" +
                std::to_string(graph::kStorageStamp) +
                R"(,"datasets":[{"entity_kind":"node","type_name":"Person","dataset_path":"nodes/1",)"
                R"("published_dataset_version":4,"native_dataset_branch":null,"entity_count":2}]})");
}

TEST(ReportJson, InitAndSchemaBodies) {
  EXPECT_EQ(InitJson("file:///g").dump(), R"({"uri":"file:///g"})");
  EXPECT_EQ(SchemaSourceJson("node A {}\n").dump(), R"({"schema_source":"node A {}\n"})");
}

}  // namespace report_json_test
}  // namespace omnigraph::api::wire
