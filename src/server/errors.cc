#include "server/errors.h"

#include <nlohmann/json.hpp>

#include "api/wire/error_json.h"

namespace omnigraph::server {

HttpResponse ErrorResponse(const Status& status) {
  HttpResponse response;
  response.status = status.http_status();
  response.body = api::wire::ErrorJson(status).dump();
  if (response.status == 429) response.AddHeader("Retry-After", "60");
  if (response.status == 416) {
    auto length = status.details().find("length");
    if (length != status.details().end()) response.AddHeader("Content-Range", "bytes */" + length->second);
  }
  return response;
}

HttpResponse ErrorResponse(int http_status, std::string message, std::optional<std::string_view> code) {
  nlohmann::ordered_json body{{"error", std::move(message)}};
  if (code) body["code"] = std::string(*code);
  HttpResponse response;
  response.status = http_status;
  response.body = body.dump();
  if (http_status == 429) response.AddHeader("Retry-After", "60");
  return response;
}

HttpResponse Unauthorized(std::string message) { return ErrorResponse(401, std::move(message), "unauthorized"); }

HttpResponse NotFoundResponse(std::string message) { return ErrorResponse(404, std::move(message), "not_found"); }

HttpResponse TooManyRequests(std::string message) {
  return ErrorResponse(429, std::move(message), "too_many_requests");
}

HttpResponse PayloadTooLarge(std::string_view resource, uint64_t limit, uint64_t actual) {
  nlohmann::ordered_json body{
      {"error", "request body exceeds the " + std::to_string(limit) + "-byte limit"},
      {"code", "bad_request"},
      {"resource_limit", {{"resource", std::string(resource)}, {"limit", limit}, {"actual", actual}}}};
  HttpResponse response;
  response.status = 413;
  response.body = body.dump();
  return response;
}

}  // namespace omnigraph::server
