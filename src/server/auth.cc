#include "server/auth.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/sha256.h"

namespace omnigraph::server {
namespace {

std::string Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// The {actor: token} object `text` came from `source`.
Status AddJsonPairs(const std::string& text, const std::string& source,
                    std::vector<std::pair<std::string, std::string>>* pairs) {
  // A JSON object keeps the last of two equal members, which would hide a
  // configuration naming one actor twice: the parse notes every top-level
  // member name so a repeated one is refused like any other duplicate actor.
  std::set<std::string> names;
  std::optional<std::string> repeated;
  auto note_names = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key && !repeated &&
        !names.insert(Trim(parsed.get<std::string>())).second) {
      repeated = Trim(parsed.get<std::string>());
    }
    return true;
  };
  nlohmann::json object = nlohmann::json::parse(text, note_names, /*allow_exceptions=*/false);
  if (repeated) return InvalidArgument("bearer token configuration names actor '" + *repeated + "' twice");
  if (!object.is_object()) {
    return InvalidArgument(source + " must hold a JSON object mapping actor ids to bearer tokens");
  }
  for (const auto& [actor, token] : object.items()) {
    if (!token.is_string()) return InvalidArgument(source + ": the token of actor '" + actor + "' is not a string");
    pairs->emplace_back(actor, token.get<std::string>());
  }
  return Status::OK();
}

}  // namespace

Environment ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool IsTruthy(const std::optional<std::string>& value) {
  if (!value) return false;
  std::string text = Trim(*value);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return !text.empty() && text != "0" && text != "false";
}

Result<TokenTable> TokenTable::FromPairs(std::vector<std::pair<std::string, std::string>> pairs) {
  TokenTable table;
  std::set<std::string> actors;
  std::set<std::array<uint8_t, 32>> digests;
  for (auto& [raw_actor, raw_token] : pairs) {
    std::string actor = Trim(raw_actor), token = Trim(raw_token);
    if (actor.empty()) return InvalidArgument("bearer token configuration has a blank actor id");
    if (token.empty()) return InvalidArgument("bearer token for actor '" + actor + "' is blank");
    if (!actors.insert(actor).second) {
      return InvalidArgument("bearer token configuration names actor '" + actor + "' twice");
    }
    std::array<uint8_t, 32> digest = Sha256(token);
    if (!digests.insert(digest).second) {
      return InvalidArgument("bearer token configuration gives actor '" + actor +
                             "' a token another actor already has; every actor needs its own token");
    }
    table.entries_.push_back(Entry{digest, actor});
  }
  std::sort(table.entries_.begin(), table.entries_.end(),
            [](const Entry& a, const Entry& b) { return a.actor < b.actor; });
  return table;
}

Result<TokenTable> TokenTable::FromEnvironment(const Environment& environment) {
  if (environment("OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET")) {
    return InvalidArgument(
        "OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET is set, but this build has no AWS Secrets Manager source; "
        "use OMNIGRAPH_SERVER_BEARER_TOKENS_FILE or OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  if (auto single = environment("OMNIGRAPH_SERVER_BEARER_TOKEN")) pairs.emplace_back("default", *single);
  if (auto file = environment("OMNIGRAPH_SERVER_BEARER_TOKENS_FILE")) {
    std::ifstream in(*file, std::ios::binary);
    if (!in) return InvalidArgument("cannot read OMNIGRAPH_SERVER_BEARER_TOKENS_FILE '" + *file + "'");
    std::stringstream text;
    text << in.rdbuf();
    OG_RETURN_IF_ERROR(AddJsonPairs(text.str(), "OMNIGRAPH_SERVER_BEARER_TOKENS_FILE '" + *file + "'", &pairs));
  } else if (auto inline_json = environment("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON")) {
    OG_RETURN_IF_ERROR(AddJsonPairs(*inline_json, "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", &pairs));
  }
  return FromPairs(std::move(pairs));
}

Result<std::string> TokenTable::Authenticate(const std::optional<std::string>& authorization) const {
  static constexpr std::string_view kScheme = "Bearer ";
  if (!authorization || authorization->compare(0, kScheme.size(), kScheme) != 0) {
    return InvalidArgument("missing bearer token");
  }
  std::array<uint8_t, 32> presented = Sha256(std::string_view(*authorization).substr(kScheme.size()));
  // Compare against every digest, without stopping at a match, so the time
  // taken says nothing about which entry (if any) matched.
  const Entry* match = nullptr;
  for (const Entry& entry : entries_) {
    bool equal = CRYPTO_memcmp(entry.digest.data(), presented.data(), presented.size()) == 0;
    if (equal && match == nullptr) match = &entry;
  }
  if (match == nullptr) return InvalidArgument("invalid bearer token");
  return match->actor;
}

}  // namespace omnigraph::server
