// __manifest rows (spec/engine.md §1.3; architecture.md §3.6): `metadata` is
// JSON text that Lance users can read; its exact text is pinned here.
#include "graph/manifest/graph_state.h"

#include <gtest/gtest.h>

namespace omnigraph::graph {
namespace graph_state_test {

GraphState SampleState() {
  GraphState state;
  TableEntry person;
  person.identity = {1, 0xabc};
  person.table_key = "node:Person";
  person.location = TableLocation(person.table_key, person.identity);
  person.pin.published_version = 7;
  person.pin.staged_version = 17229974970821765689ull;
  person.pin.transaction_uuid = "ec076541-fe91-4f3a-9d1e-000000000001";
  person.pin.last_linear_version = 1;
  person.pin.row_count = 42;
  person.pin.manifest_path = "nodes/0000000000000001-0000000000000abc/_versions/d17229974970821765689.manifest";
  person.pin.manifest_size = 1838;
  state.tables[person.table_key] = person;
  TableEntry knows = person;
  knows.identity = {2, 0xdef};
  knows.table_key = "edge:Knows";
  knows.location = TableLocation(knows.table_key, knows.identity);
  knows.pin.staged_version.reset();
  state.tables[knows.table_key] = knows;
  state.head.id = "hb1.01M8P32R4823KF3ZAP402S0NFX.4.01M8P32R7T44J25MSSGH86Z74X";
  state.head.parent_id = "hb1.01M8P32R4823KF3ZAP402S0NFX.3.01M8P32R6KP6CVM46PDNMW590S";
  state.head.actor_id = "ann \"the\" admin\n";
  state.head.created_at_us = 1764500000000000;
  state.head.manifest_version = 6;
  state.head.generation = 5;
  state.head.block = "01M8P32R4823KF3ZAP402S0NFX";
  state.head.slot = 4;
  state.schema = {"node Person { name: String @key }", "{\"ir\":1}", "abc123"};
  return state;
}

TEST(GraphState, MetadataIsExactJsonTextWithSortedKeys) {
  auto rows = EncodeGraphState(SampleState());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const Array& metadata = *(*rows)->GetColumn("metadata");
  ASSERT_EQ(metadata.length(), 4);
  // Table rows in table-key order: edge:Knows, node:Person.
  EXPECT_EQ(metadata.GetView(0),
            R"({"last_linear_version":1,"manifest_path":"nodes/0000000000000001-0000000000000abc/_versions/)"
            R"(d17229974970821765689.manifest","manifest_size":1838,"naming_scheme":"V2","state":"pinned",)"
            R"("transaction_uuid":"ec076541-fe91-4f3a-9d1e-000000000001"})");
  EXPECT_EQ(metadata.GetView(1),
            R"({"last_linear_version":1,"manifest_path":"nodes/0000000000000001-0000000000000abc/_versions/)"
            R"(d17229974970821765689.manifest","manifest_size":1838,"naming_scheme":"V2",)"
            R"("staged_version":"17229974970821765689","state":"pinned",)"
            R"("transaction_uuid":"ec076541-fe91-4f3a-9d1e-000000000001"})");
  EXPECT_EQ(metadata.GetView(2),
            R"({"actor_id":"ann \"the\" admin\n","block":"01M8P32R4823KF3ZAP402S0NFX","branch_identity":"main",)"
            R"("created_at":1764500000000000,"generation":5,)"
            R"("parent_commit_id":"hb1.01M8P32R4823KF3ZAP402S0NFX.3.01M8P32R6KP6CVM46PDNMW590S","slot":4})");
  EXPECT_EQ(metadata.GetView(3),
            R"({"schema_identity_domain":"omnigraph","schema_identity_version":1,"schema_ir_hash":"abc123"})");
  // And it decodes back to the same state.
  auto decoded = DecodeGraphState(**rows, "test");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->tables.at("node:Person").pin, SampleState().tables.at("node:Person").pin);
  EXPECT_EQ(decoded->head.actor_id, SampleState().head.actor_id);
}

}  // namespace graph_state_test
}  // namespace omnigraph::graph
