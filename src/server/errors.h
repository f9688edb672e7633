// Every error the server answers is the `ErrorOutput` JSON of
// spec/server.md §1.5 (api/wire/error_json.h builds it from a Status),
// including the transport's own refusals: a malformed body, an unknown
// path, a wrong method, a wrong content type. The spec leaves those to the
// framework's plain-text defaults; we decided once to answer them in the
// same JSON with the same status codes, so a client has one error shape.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/http.h"
#include "util/status.h"

namespace omnigraph::server {

// The response for a failed engine or handler call: the status HttpStatusOf
// maps `status`'s code to, the ErrorOutput body with its detail object,
// `Retry-After: 60` on 429 and `Content-Range: bytes */N` on 416.
// REQUIRES: !status.ok().
HttpResponse ErrorResponse(const Status& status);

// A transport-level refusal with an explicit HTTP status: `code` is one of
// the closed ErrorCode values (server.md §1.5; nullopt omits it).
HttpResponse ErrorResponse(int http_status, std::string message, std::optional<std::string_view> code);

// 401 {"error": message, "code": "unauthorized"}.
HttpResponse Unauthorized(std::string message);
// 404 {"error": message, "code": "not_found"}.
HttpResponse NotFoundResponse(std::string message);
// 429 too_many_requests with Retry-After: 60 (server.md §1.7).
HttpResponse TooManyRequests(std::string message);
// 413 with a resource_limit detail {resource, limit, actual} (bytes).
HttpResponse PayloadTooLarge(std::string_view resource, uint64_t limit, uint64_t actual);

}  // namespace omnigraph::server
