// Internal to src/policy. Strict reading of the policy YAML files (spec/server.md §2.2: unknown
// keys are rejected everywhere), shared by the bundle and the tests-file
// parsers. Every error names the file and the 1-based line:column of the
// node at fault, as "<file>:<line>:<column>: <message>".
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "policy/source_position.h"
#include "util/status.h"

namespace omnigraph::policy {

// One key of a mapping with its value; both keep their source positions.
struct YamlField {
  YAML::Node key;
  YAML::Node value;
};

// Reads nodes of one file and words its errors.
class YamlFields {
 public:
  explicit YamlFields(std::string_view file) : file_(file) {}

  const std::string& file() const { return file_; }

  // Parses `text` into its one document. Errors: InvalidArgument for YAML
  // syntax (at yaml-cpp's mark) and for nesting deeper than yaml-cpp allows.
  Result<YAML::Node> Load(std::string_view text) const;

  // The position of `node`; {0, 0} when yaml-cpp recorded none.
  static SourcePosition PositionOf(const YAML::Node& node);

  // InvalidArgument "<file>:<line>:<column>: <message>" at `node` (at the
  // file alone when the node has no position), with details file, line and
  // column.
  Status ErrorAt(const YAML::Node& node, std::string_view message) const;
  // As above, at `position` (the file alone for {0, 0}).
  Status ErrorAt(SourcePosition position, std::string_view message) const;
  // As above, at the value of `field`, else its key when the value (an
  // empty value, read as null) has no position.
  Status ErrorAt(const YamlField& field, std::string_view message) const;

  // The fields of mapping `node`, called `what` in messages, in source
  // order. Errors: "<what> must be a mapping" when it is not; "unknown
  // field '<k>' in <what>, expected one of <allowed>" for a key outside
  // `allowed` (an empty `allowed` accepts any key); "duplicate key '<k>'
  // in <what>" for a key given twice; "<what> is missing the '<k>' field"
  // (at the mapping) for a missing key of `required`; "keys of <what>
  // must be plain strings" for a key that is a list or a mapping.
  Result<std::vector<YamlField>> Fields(const YAML::Node& node, std::string_view what,
                                        std::initializer_list<std::string_view> allowed,
                                        std::initializer_list<std::string_view> required) const;

  // As Fields, but reads on past what it can: every unknown key, repeated
  // key (both left out of the result) and missing required key is appended
  // to `errors`, in the order Fields would meet them. None, with the error
  // appended, when `node` is not a mapping or has a key that is a list or
  // a mapping.
  std::optional<std::vector<YamlField>> CollectFields(const YAML::Node& node, std::string_view what,
                                                      std::initializer_list<std::string_view> allowed,
                                                      std::initializer_list<std::string_view> required,
                                                      std::vector<Status>* errors) const;

  // The text of scalar `field.value`. Errors: "<what> must be a string"
  // when the value is null, a list or a mapping.
  Result<std::string> Scalar(const YamlField& field, std::string_view what) const;
  // The text of scalar `node`, called `what`. Errors: as above.
  Result<std::string> Scalar(const YAML::Node& node, std::string_view what) const;

  // Checks that `field.value` is a list. Errors: "<what> must be a list".
  Status CheckSequence(const YamlField& field, std::string_view what) const;

  // The `version` field's value, which must be the plain integer 1.
  // Errors: "<what> version must be 1" for any other value.
  Status CheckVersionOne(const YamlField& field, std::string_view what) const;

 private:
  std::string file_;
};

// The whole of file `path`, as the policy verbs and the server read a
// bundle or a tests file. Errors: NotFound "cannot read '<path>': no such
// file"; IoError for a directory or a failed read.
Result<std::string> ReadTextFile(const std::string& path);

// The field named `name` among `fields`, or nullopt.
const YamlField* FindField(const std::vector<YamlField>& fields, std::string_view name);

// True when `text` is empty or only whitespace (a "blank" name or id).
bool IsBlank(std::string_view text);

}  // namespace omnigraph::policy
