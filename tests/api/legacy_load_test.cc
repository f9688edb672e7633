// The loader-compatible (legacy) load syntax through the embedded API
// (spec/surface.md §4.6): the stream of JSON values, "record N" errors, the
// ignored extras, wrong JSON kinds as NULL, Date/DateTime values, and legacy
// key spellings with the edge endpoints that name them remapped.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace legacy_load_test {

using exec::LoadSyntax;

constexpr std::string_view kSchema = R"(
node Person {
    name: String @key
    age: I32?
    nick: String?
    active: Bool?
    score: F64?
    tags: [String]?
    born: Date?
    seen: DateTime?
}

node Company {
    name: String @key
    size: I32
}

node Event {
    day: Date @key
    title: String?
}

node Seat {
    team: String
    number: I64
    @key(team, number)
}

edge Knows: Person -> Person
edge WorksAt: Person -> Company
edge Attends: Person -> Event
edge Holds: Person -> Seat
)";

class LegacyLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto graph = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = std::move(graph).value();
  }
  Result<LoadReport> Legacy(std::string_view data, LoadMode mode = LoadMode::kMerge) {
    return graph_->Load(data, "ignored.jsonl", mode, "main", {}, std::nullopt, LoadSyntax::kLegacy);
  }
  // The legacy load's error message; empty (and a test failure) when it loads.
  std::string Refusal(std::string_view data, LoadMode mode = LoadMode::kMerge) {
    auto report = Legacy(data, mode);
    EXPECT_FALSE(report.ok()) << data;
    return report.ok() ? std::string() : report.status().message();
  }
  std::string Export(const std::string& type) { return *graph_->Export("main", {type}); }
  // (from, to) of every exported edge of `type` (edge ids are fresh ULIDs).
  std::vector<std::pair<std::string, std::string>> Endpoints(const std::string& type) {
    std::vector<std::pair<std::string, std::string>> out;
    std::string text = Export(type);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      auto row = nlohmann::json::parse(text.substr(pos, end - pos));
      out.emplace_back(row["from"], row["to"]);
      pos = end + 1;
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  size_t Commits() { return graph_->ListCommits()->size(); }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

// Pretty-printed objects spanning lines, several values on one line, any
// whitespace between them; extra top-level members and unknown data keys
// are ignored.
TEST_F(LegacyLoadTest, StreamOfValuesWithIgnoredExtras) {
  auto report = Legacy(R"({
  "type": "Person",
  "data": {
    "name": "alice",
    "age": 30,
    "hobby": "chess"
  },
  "comment": "exported by hand"
} {"type":"Person","data":{"name":"bob","_rowid":7}}	{"type": "Company", "id": "x", "data": {"name": "acme", "size": 12}}


{"edge": "knows", "from": "alice", "to": "bob", "weight": 3, "data": {"src": "zoe", "note": 1}}
   {"edge":"WorksAt","from":"alice","to":"acme","type":5}
)");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->total_entities, 5u);
  ASSERT_EQ(report->nodes.size(), 2u);
  EXPECT_EQ(report->nodes[0].name, "Company");
  EXPECT_EQ(report->nodes[0].entities_loaded, 1u);
  EXPECT_EQ(report->nodes[1].name, "Person");
  EXPECT_EQ(report->nodes[1].entities_loaded, 2u);
  ASSERT_EQ(report->edges.size(), 2u);
  EXPECT_EQ(report->edges[0].name, "Knows");  // resolved case-insensitively
  EXPECT_EQ(Export("Person"),
            "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"active\":null,\"age\":30,\"born\":null,\"name\":"
            "\"alice\",\"nick\":null,\"score\":null,\"seen\":null,\"tags\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"active\":null,\"age\":null,\"born\":null,\"name\":"
            "\"bob\",\"nick\":null,\"score\":null,\"seen\":null,\"tags\":null}}\n");
  EXPECT_EQ(Export("Company"), "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"name\":\"acme\",\"size\":12}}\n");
  EXPECT_EQ(Endpoints("Knows"), (std::vector<std::pair<std::string, std::string>>{{"alice", "bob"}}));
  EXPECT_EQ(Endpoints("WorksAt"), (std::vector<std::pair<std::string, std::string>>{{"alice", "acme"}}));
  // A BOM may start the stream; an empty stream is a lineage-only commit.
  ASSERT_TRUE(Legacy("\xEF\xBB\xBF{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}").ok());
  size_t before = Commits();
  auto empty = Legacy(" \n\t\r\n");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->total_entities, 0u);
  EXPECT_EQ(Commits(), before + 1);
}

// A value of the wrong JSON kind loads as NULL; a non-nullable property
// then refuses it, and so does a key.
TEST_F(LegacyLoadTest, WrongJsonKindsLoadAsNull) {
  auto report = Legacy(R"({"type":"Person","data":{"name":"alice","age":"30","nick":5,"active":"yes","score":"1.5","tags":"a"}}
{"type":"Person","data":{"name":"bob","age":3.5,"nick":["x"],"active":1,"score":true,"tags":{"a":1}}}
{"type":"Person","data":{"name":"carol","age":41,"nick":"cc","active":false,"score":2,"tags":["t1","t2"]}}
)");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(Export("Person"),
            "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"active\":null,\"age\":null,\"born\":null,\"name\":"
            "\"alice\",\"nick\":null,\"score\":null,\"seen\":null,\"tags\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"active\":null,\"age\":null,\"born\":null,\"name\":"
            "\"bob\",\"nick\":null,\"score\":null,\"seen\":null,\"tags\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"active\":false,\"age\":41,\"born\":null,\"name\":"
            "\"carol\",\"nick\":\"cc\",\"score\":2.0,\"seen\":null,\"tags\":[\"t1\",\"t2\"]}}\n");
  size_t before = Commits();
  EXPECT_EQ(Refusal("{\"type\":\"Company\",\"data\":{\"name\":\"acme\",\"size\":12}}\n"
                    "{\"type\":\"Company\",\"data\":{\"name\":\"initech\",\"size\":\"big\"}}\n"),
            "record 2: non-nullable property 'size' has null or invalid values");
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":5}})"), "record 1: node Person is missing a non-null @key value");
  // The right kind out of range is still refused, as in the strict syntax.
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":"dave","age":4294967296}})"),
            "record 1: property 'age' value 4294967296 exceeds Int32 range");
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":"dave","tags":["a",1]}})"),
            "record 1: strict list property 'tags' contains a null or invalid item");
  EXPECT_EQ(Commits(), before);
}

// Date and DateTime take text or integer epochs, as in the strict syntax,
// and refuse the text that refuses.
TEST_F(LegacyLoadTest, DateAndDateTimeTakeTextOrEpochs) {
  auto report = Legacy(R"({"type":"Person","data":{"name":"a","born":"2024-01-01","seen":"2024-01-01T00:00:00Z"}}
{"type":"Person","data":{"name":"b","born":19723,"seen":1704067200000}}
{"type":"Person","data":{"name":"c","born":"2024-01-02","seen":"2024-01-01T01:00:00+01:00"}}
)");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::string exported = Export("Person");
  EXPECT_NE(exported.find("\"id\":\"a\",\"active\":null,\"age\":null,\"born\":19723,"), std::string::npos) << exported;
  EXPECT_NE(exported.find("\"id\":\"b\",\"active\":null,\"age\":null,\"born\":19723,"), std::string::npos) << exported;
  EXPECT_NE(exported.find("\"id\":\"c\",\"active\":null,\"age\":null,\"born\":19724,"), std::string::npos) << exported;
  EXPECT_EQ(std::count(exported.begin(), exported.end(), '\n'), 3);
  for (const std::string id : {"a", "b", "c"}) {
    EXPECT_NE(exported.find("\"name\":\"" + id + "\",\"nick\":null,\"score\":null,\"seen\":1704067200000,"),
              std::string::npos)
        << exported;
  }
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":"d","born":"nope"}})"),
            "record 1: property 'born': invalid Date literal \"nope\"");
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":"d","seen":"yesterday"}})"),
            "record 1: property 'seen': invalid DateTime literal \"yesterday\"");
  // Any other JSON kind is the wrong one: NULL, refused by a key.
  ASSERT_TRUE(Legacy(R"({"type":"Person","data":{"name":"d","born":true,"seen":19723.5}})").ok());
  EXPECT_NE(Export("Person").find("{\"id\":\"d\",\"active\":null,\"age\":null,\"born\":null,\"name\":\"d\",\"nick\":"
                                  "null,\"score\":null,\"seen\":null,\"tags\":null}"),
            std::string::npos);
  EXPECT_EQ(Refusal(R"({"type":"Event","data":{"day":[2024,1,1]}})"),
            "record 1: node Event is missing a non-null @key value");
}

// Every error about a record names it by its 1-based position in the
// stream, however many lines it spans.
TEST_F(LegacyLoadTest, ErrorsCiteRecordNumbers) {
  constexpr std::string_view kTwo = "{\"type\":\"Person\",\"data\":{\"name\":\"alice\"}}\n{\n  \"type\": \"Person\",\n"
                                    "  \"data\": {\"name\": \"bob\"}\n}\n";
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"type":"Ghost","data":{}})"), "record 3: unknown node type 'Ghost'");
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"edge":"Likes","from":"alice","to":"bob"})"),
            "record 3: unknown edge type 'Likes'");
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"edge":"Knows","to":"bob"})"), "record 3: edge missing 'from'");
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"edge":"Knows","from":"alice","to":7})"), "record 3: edge missing 'to'");
  EXPECT_EQ(Refusal(R"({"data":{"name":"x"}})"), "record 1: expected 'type' or 'edge' field");
  EXPECT_EQ(Refusal(R"({"type":7,"edge":false})"), "record 1: expected 'type' or 'edge' field");
  EXPECT_EQ(Refusal(std::string(kTwo) + "42"), "record 3: expected 'type' or 'edge' field");
  EXPECT_EQ(Refusal(R"({"type":"Person","data":["name"]})"), "record 1: 'data' must be an object");
  EXPECT_EQ(Refusal(R"({"type":"Person","data":{"name":"x","id":5}})"), "record 1: 'data.id' must be a string");
  std::string malformed = Refusal(std::string(kTwo) + "{\"type\":\"Person\",\n\"data\":{\"name\" \"x\"}}");
  EXPECT_EQ(malformed.rfind("record 3: invalid JSON at column ", 0), 0u) << malformed;
  std::string unterminated = Refusal(std::string(kTwo) + "{\"type\":\"Person\"");
  EXPECT_EQ(unterminated.rfind("record 3: invalid JSON at column ", 0), 0u) << unterminated;
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"type":"Person","data":{"name":"c","name":"d"}})"),
            "record 3: duplicate JSON member 'name'");
  // Errors of the shared conversion and validation, too.
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"edge":"Knows","from":"alice","to":"zoe"})"),
            "record 3: dst 'zoe' not found in Person");
  EXPECT_EQ(Refusal(std::string(kTwo) + R"({"type":"Person","data":{"name":"alice"}})"),
            "record 3: @unique violation on Person.name: value 'alice' held by 'alice' and 'alice' (records 1 and 3)");
  ASSERT_TRUE(Legacy(kTwo).ok());
  auto conflict = Legacy("\n\n" + std::string(kTwo), LoadMode::kAppend);
  EXPECT_EQ(conflict.status().code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(conflict.status().message(), "record 1: node type 'Person' already has this id: 'alice'");
}

// A keyed node's data.id may be a legacy spelling of one key component:
// the node gets its canonical id and the import's edges naming the legacy
// id follow it.
TEST_F(LegacyLoadTest, LegacyKeySpellingsAreRemappedForEdges) {
  auto report = Legacy(R"({"type":"Person","data":{"name":"alice"}}
{"edge":"Attends","from":"alice","to":"2024-01-01"}
{"type":"Event","data":{"id":"2024-01-01","day":"2024-01-01","title":"new year"}}
{"type":"Event","data":{"id":"19724","day":19724}}
{"type":"Seat","data":{"id":"red","team":"red","number":7}}
{"type":"Seat","data":{"id":"8","team":"blue","number":8}}
{"type":"Seat","data":{"id":"[\"9\",\"green\"]","team":"green","number":9}}
{"edge":"Holds","from":"alice","to":"red"}
{"edge":"Holds","from":"alice","to":"8"}
{"edge":"Holds","from":"alice","to":"[\"9\",\"green\"]"}
{"edge":"Attends","from":"alice","to":"19724"}
)");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(Export("Event"),
            "{\"type\":\"Event\",\"data\":{\"id\":\"19723\",\"day\":19723,\"title\":\"new year\"}}\n"
            "{\"type\":\"Event\",\"data\":{\"id\":\"19724\",\"day\":19724,\"title\":null}}\n");
  // The key tuple is in stable property id order: (number, team).
  EXPECT_EQ(Export("Seat"),
            "{\"type\":\"Seat\",\"data\":{\"id\":\"[\\\"7\\\",\\\"red\\\"]\",\"number\":7,\"team\":\"red\"}}\n"
            "{\"type\":\"Seat\",\"data\":{\"id\":\"[\\\"8\\\",\\\"blue\\\"]\",\"number\":8,\"team\":\"blue\"}}\n"
            "{\"type\":\"Seat\",\"data\":{\"id\":\"[\\\"9\\\",\\\"green\\\"]\",\"number\":9,\"team\":\"green\"}}\n");
  EXPECT_EQ(Endpoints("Attends"),
            (std::vector<std::pair<std::string, std::string>>{{"alice", "19723"}, {"alice", "19724"}}));
  EXPECT_EQ(Endpoints("Holds"), (std::vector<std::pair<std::string, std::string>>{{"alice", "[\"7\",\"red\"]"},
                                                                                    {"alice", "[\"8\",\"blue\"]"},
                                                                                    {"alice", "[\"9\",\"green\"]"}}));
  // Only within the import: a later edge naming the legacy id is dangling.
  EXPECT_EQ(Refusal(R"({"edge":"Attends","from":"alice","to":"2024-01-01"})"),
            "record 1: dst '2024-01-01' not found in Event");
  // An id that spells no key component is refused as in the strict syntax.
  EXPECT_EQ(Refusal(R"({"type":"Event","data":{"id":"2024-01-02","day":"2024-01-01"}})"),
            "record 1: node Event explicit id '2024-01-02' does not match its canonical @key id '19723'");
  EXPECT_EQ(Refusal(R"({"type":"Seat","data":{"id":"7.0","team":"red","number":7}})"),
            "record 1: node Seat explicit id '7.0' does not match its canonical @key id '[\"7\",\"red\"]'");
  // One legacy id for two nodes cannot remap an edge.
  EXPECT_EQ(Refusal("{\"type\":\"Seat\",\"data\":{\"id\":\"red\",\"team\":\"red\",\"number\":1}}\n"
                    "{\"type\":\"Seat\",\"data\":{\"id\":\"red\",\"team\":\"red\",\"number\":2}}\n"),
            "record 2: node Seat explicit id 'red' maps to both canonical @key ids '[\"1\",\"red\"]' and "
            "'[\"2\",\"red\"]'; refusing ambiguous edge endpoint remap");
  // The strict syntax accepts only the canonical id.
  auto strict = graph_->Load(R"({"type":"Event","data":{"id":"2024-01-01","day":"2024-01-01"}})", "s.jsonl",
                             LoadMode::kMerge);
  EXPECT_EQ(strict.status().message(),
            "s.jsonl:1: node Event explicit id '2024-01-01' does not match its canonical @key id '19723'");
}

// The strict syntax is unchanged: one object per line, unknown fields refused.
TEST_F(LegacyLoadTest, StrictSyntaxStaysStrict) {
  auto pretty = graph_->Load("{\n  \"type\": \"Person\",\n  \"data\": {\"name\": \"alice\"}\n}\n", "p.jsonl",
                             LoadMode::kMerge);
  EXPECT_EQ(pretty.status().message().rfind("p.jsonl:1: invalid JSON at column ", 0), 0u) << pretty.status().message();
  auto extra = graph_->Load(R"({"type":"Person","data":{"name":"alice","hobby":"chess"}})", "e.jsonl",
                            LoadMode::kMerge);
  EXPECT_EQ(extra.status().message(), "e.jsonl:1: unknown input field 'hobby' for 'node:Person'");
  auto wrong = graph_->Load(R"({"type":"Person","data":{"name":"alice","age":"30"}})", "w.jsonl", LoadMode::kMerge);
  EXPECT_EQ(wrong.status().message(), "w.jsonl:1: strict property 'age' expects Int32, got \"30\"");
}

}  // namespace legacy_load_test
}  // namespace omnigraph::api
