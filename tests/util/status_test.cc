#include "util/status.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace status_test {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd input " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  OG_ASSIGN_OR_RETURN(int half, Half(x));
  OG_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(Status, OkHasNoCodeOrMessage) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), ErrorCode::kOk);
  EXPECT_EQ(st.message(), "");
  EXPECT_EQ(st.http_status(), 200);
  EXPECT_EQ(st.ToString(), "ok");
}

TEST(Status, CodesHaveStableNamesAndHttpStatuses) {
  EXPECT_EQ(ErrorCodeName(ErrorCode::kKeyConflict), "key_conflict");
  EXPECT_EQ(HttpStatusOf(ErrorCode::kKeyConflict), 409);
  EXPECT_EQ(ErrorCodeName(ErrorCode::kReadSetChanged), "read_set_changed");
  EXPECT_EQ(HttpStatusOf(ErrorCode::kReadSetChanged), 409);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kPreconditionFailed), 412);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kResourceLimitExceeded), 413);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kVersionReclaimed), 500);
  EXPECT_EQ(HttpStatusOf(ErrorCode::kCorruptData), 500);
  EXPECT_EQ(ErrorCodeName(ErrorCode::kCorruptData), "corrupt_data");
}

TEST(Status, ContextAndDetailsAreKept) {
  Status st = Status(ErrorCode::kKeyConflict, "key 'a' exists", {{"key", "a"}});
  Status wrapped = st.WithContext("table people").WithDetail("column", "id");
  EXPECT_EQ(wrapped.code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(wrapped.message(), "table people: key 'a' exists");
  EXPECT_EQ(wrapped.details().at("key"), "a");
  EXPECT_EQ(wrapped.details().at("column"), "id");
  EXPECT_EQ(wrapped.ToString(), "key_conflict: table people: key 'a' exists");
}

TEST(Status, ResourceLimitCarriesStructuredDetail) {
  Status st = ResourceLimitExceeded("keyed entities for node:Person", 8192, 9000);
  EXPECT_EQ(st.code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(st.details().at("limit"), "8192");
  EXPECT_EQ(st.details().at("actual"), "9000");
  EXPECT_EQ(st.message(), "keyed entities for node:Person exceeds the limit: 9000 > 8192");
}

TEST(Result, PropagatesErrorsThroughMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "odd input 3");
}

TEST(Result, OkStatusIsNotAValue) {
  Result<int> r = Status::OK();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInternal);
}

}  // namespace status_test
}  // namespace omnigraph
