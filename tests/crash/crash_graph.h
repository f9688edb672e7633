// The small graph the graph-write and branch crash suites run on: two node
// types and an edge type, a base of two people at one company, and the
// mutations the suites kill.
#pragma once

#include <string_view>

namespace omnigraph::crash {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key  city: String? }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kBase = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme","city":"paris"}}
{"edge":"WorksAt","from":"alice","to":"acme","data":{"id":"w1"}}
{"edge":"WorksAt","from":"bob","to":"acme","data":{"id":"w2"}}
)";

// hire inserts into both node tables, relocate updates both, fire deletes a
// person (cascading to her edge), add_person inserts one.
constexpr std::string_view kMutations = R"(
query hire() {
    insert Person { name: "carol", age: 41 }
    insert Company { name: "globex", city: "oslo" }
}
query relocate() {
    update Person set { age: 31 } where name = "alice"
    update Company set { city: "rome" } where name = "acme"
}
query fire() { delete Person where name = "alice" }
query add_person($name: String) { insert Person { name: $name } }
)";

}  // namespace omnigraph::crash
