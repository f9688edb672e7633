#include "util/random.h"

#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

namespace omnigraph {
namespace random_test {

TEST(Uuid, RandomIsVersion4AndRoundTrips) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    Uuid u = Uuid::Random();
    std::string text = u.ToString();
    ASSERT_EQ(text.size(), 36u);
    EXPECT_EQ(text[14], '4');
    EXPECT_TRUE(text[19] == '8' || text[19] == '9' || text[19] == 'a' || text[19] == 'b');
    Uuid parsed;
    ASSERT_TRUE(Uuid::Parse(text, &parsed));
    EXPECT_EQ(parsed, u);
    seen.insert(text);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(Uuid, ParseRejectsMalformed) {
  Uuid u;
  EXPECT_FALSE(Uuid::Parse("not-a-uuid", &u));
  EXPECT_FALSE(Uuid::Parse("c803931f34104070bc4c62ed7cd02c5c0000", &u));
  EXPECT_FALSE(Uuid::Parse("c803931f-3410-4070-bc4c-62ed7cd02c5g", &u));
  ASSERT_TRUE(Uuid::Parse("c803931f-3410-4070-bc4c-62ed7cd02c5c", &u));
  EXPECT_EQ(u.ToHex(), "c803931f34104070bc4c62ed7cd02c5c");
  EXPECT_EQ(u.ToString(), "c803931f-3410-4070-bc4c-62ed7cd02c5c");
}

}  // namespace random_test
}  // namespace omnigraph

namespace omnigraph {
namespace random_test {

TEST(Random, ForkedChildDoesNotRepeatTheParentsSequence) {
  (void)RandomU64();  // seed this thread's generator before forking
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    uint64_t child = RandomU64();
    (void)!write(fds[1], &child, sizeof(child));
    _exit(0);
  }
  uint64_t parent = RandomU64();
  uint64_t child = 0;
  ASSERT_EQ(read(fds[0], &child, sizeof(child)), static_cast<ssize_t>(sizeof(child)));
  waitpid(pid, nullptr, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_NE(parent, child);
}

}  // namespace random_test
}  // namespace omnigraph

#include "util/ulid.h"

namespace omnigraph {
namespace random_test {

TEST(Ulid, SpellingRoundTripsAndSorts) {
  Ulid u = Ulid::FromParts(1714000000000ULL, 0x1234, 0x0123456789abcdefULL);
  std::string text = u.ToString();
  EXPECT_EQ(text.size(), 26u);
  EXPECT_EQ(u.unix_ms(), 1714000000000ULL);
  Ulid back;
  ASSERT_TRUE(Ulid::Parse(text, &back));
  EXPECT_EQ(back, u);
  EXPECT_TRUE(IsCanonicalUlid(text));
  EXPECT_EQ(Ulid::FromParts(0, 0, 0).ToString(), "00000000000000000000000000");
  EXPECT_EQ(Ulid::FromParts(0xFFFFFFFFFFFFULL, 0xFFFF, ~0ULL).ToString(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  EXPECT_FALSE(Ulid::Parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ", &back));  // overflows 128 bits
  EXPECT_FALSE(Ulid::Parse("0000000000000000000000000U", &back));  // U is not Crockford
  EXPECT_FALSE(IsCanonicalUlid("01arz3ndektsv4rrffq69g5fav"));     // lower case is not canonical
  std::string prev = Ulid::New().ToString();
  for (int i = 0; i < 1000; ++i) {
    std::string next = Ulid::New().ToString();
    EXPECT_LT(prev, next);
    prev = next;
  }
}

}  // namespace random_test
}  // namespace omnigraph

namespace omnigraph {
namespace random_test {

// Within one millisecond the parent mints last+1; a child forked after
// `first` must not mint that same id.
TEST(Ulid, ForkedChildDoesNotContinueTheParentsSequence) {
  Ulid first = Ulid::New();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Ulid child = Ulid::New();
    (void)!write(fds[1], child.bytes.data(), child.bytes.size());
    _exit(0);
  }
  Ulid parent = Ulid::New();
  Ulid child;
  ASSERT_EQ(read(fds[0], child.bytes.data(), child.bytes.size()), static_cast<ssize_t>(child.bytes.size()));
  waitpid(pid, nullptr, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_NE(parent, child);
  EXPECT_NE(first, child);
  EXPECT_LT(first, parent);
}

}  // namespace random_test
}  // namespace omnigraph
