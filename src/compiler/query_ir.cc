#include "compiler/query_ir.h"

#include <fmt/format.h>

namespace omnigraph::compiler::ir {

namespace {

std::string Filters(const std::vector<PropertyFilter>& filters) {
  if (filters.empty()) return "";
  std::string out = " {";
  for (size_t i = 0; i < filters.size(); ++i) {
    if (i) out += ", ";
    out += fmt::format("{} {} {}", filters[i].property, filters[i].membership ? "∋" : "=", filters[i].value.ToString());
  }
  return out + "}";
}

const char* FollowName(Traverse::Follow f) {
  switch (f) {
    case Traverse::Follow::kSrcToDst: return "src->dst";
    case Traverse::Follow::kDstToSrc: return "dst->src";
    case Traverse::Follow::kBoth: return "both";
  }
  return "?";
}

const char* DirectionName(Traverse::Direction d) {
  switch (d) {
    case Traverse::Direction::kForward: return "forward";
    case Traverse::Direction::kBackward: return "backward";
    case Traverse::Direction::kUndirected: return "undirected";
  }
  return "?";
}

const char* FilterKindName(Filter::Kind k) {
  switch (k) {
    case Filter::Kind::kCompare: return "";
    case Filter::Kind::kListContains: return "list-contains ";
    case Filter::Kind::kStringContains: return "string-contains ";
    case Filter::Kind::kStartsWith: return "starts-with ";
    case Filter::Kind::kTextSearch: return "text-search ";
  }
  return "";
}

void Steps(const std::vector<MatchStep>& steps, const std::string& indent, std::string* out) {
  for (const MatchStep& s : steps) {
    switch (s.kind) {
      case MatchStep::Kind::kScan:
        *out += fmt::format("{}scan ${}: {}{}{}\n", indent, s.scan.variable, s.scan.type_name, Filters(s.scan.filters),
                            s.scan.implicit ? " (implicit)" : "");
        break;
      case MatchStep::Kind::kCheck:
        *out += fmt::format("{}check ${}: {}{}\n", indent, s.check.variable, s.check.type_name,
                            Filters(s.check.filters));
        break;
      case MatchStep::Kind::kTraverse: {
        const Traverse& t = s.traverse;
        *out += fmt::format("{}traverse ${} -> ${} via {}{} ({}, from ${} {}, {}, hops {}..{})\n", indent,
                            t.from_variable, t.to_variable, t.edge_type,
                            t.edge_variable.empty() ? "" : " as $" + t.edge_variable, DirectionName(t.direction),
                            t.from_variable, FollowName(t.follow), t.to_is_new ? "new" : "cycle", t.min_hops,
                            t.max_hops);
        break;
      }
      case MatchStep::Kind::kFilter:
        *out += fmt::format("{}filter {}{}\n", indent, FilterKindName(s.filter.kind), s.filter.source);
        break;
      case MatchStep::Kind::kNegation: {
        std::string outer;
        for (const std::string& v : s.negation.outer_variables) outer += (outer.empty() ? "$" : ", $") + v;
        *out += fmt::format("{}not [{}] {{\n", indent, outer);
        Steps(s.negation.steps, indent + "  ", out);
        *out += indent + "}\n";
        break;
      }
    }
  }
}

}  // namespace

std::string ToDebugString(const QueryIR& q) {
  std::string out;
  if (q.is_mutation) {
    for (const MutationStatement& s : q.statements) {
      const char* kind = s.kind == MutationStatement::Kind::kInsert   ? "insert"
                         : s.kind == MutationStatement::Kind::kUpdate ? "update"
                                                                      : "delete";
      out += fmt::format("{} {} {}", kind, s.on_edge ? "edge" : "node", s.type_name);
      if (s.from) out += " from " + s.from->ToString();
      if (s.to) out += " to " + s.to->ToString();
      if (!s.assignments.empty()) {
        out += " {";
        for (size_t i = 0; i < s.assignments.size(); ++i) {
          if (i) out += ", ";
          out += fmt::format("{}: {}", s.assignments[i].property, s.assignments[i].value.ToString());
        }
        out += "}";
      }
      if (s.where) {
        out += fmt::format(" where {} {} {}", s.where->property, CompareOpName(s.where->op), s.where->value.ToString());
      }
      out += "\n";
    }
    return out;
  }
  Steps(q.read.steps, "", &out);
  for (const Projection& p : q.read.projections) {
    out += fmt::format("return {}: {} = {}{}\n", p.column, p.expr.type.ToString(), p.expr.source,
                       p.is_aggregate ? " (aggregate)" : "");
  }
  if (q.read.search_order) out += fmt::format("search order {}\n", q.read.search_order->source);
  for (const OrderKey& k : q.read.order) {
    out += fmt::format("order {}{}{}\n", k.expr.source,
                       k.kind == OrderKey::Kind::kProjection ? fmt::format(" (column {})", k.projection) : "",
                       k.descending ? " desc" : "");
  }
  if (q.read.limit) out += fmt::format("limit {}\n", *q.read.limit);
  return out;
}

}  // namespace omnigraph::compiler::ir
