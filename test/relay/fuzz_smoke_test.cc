// A short, unguided run of the relay fuzz targets inside the unit tests:
// random bytes and mutations of valid inputs. The coverage-guided runs are
// the relay_*_fuzz targets (-DSUNDIAL_FUZZ=ON).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "relay/fuzz_targets.h"
#include "relay/position_file.h"
#include "storage/test_util.h"

namespace sundial::relay {
namespace {

using storage::testing::Mutate;
using storage::testing::TestSeed;

template <typename Fn>
void RunMutated(const std::vector<std::string>& seeds, uint64_t seed, int rounds, Fn fn) {
  std::mt19937_64 rng(TestSeed(seed));
  for (int i = 0; i < rounds; ++i) {
    std::string s = seeds[static_cast<size_t>(rng() % seeds.size())];
    Mutate(&s, &rng);
    fn(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

TEST(RelayFuzzSmoke, HttpResponse) {
  RunMutated({"HTTP/1.1 204 No Content\r\n\r\n",
       "HTTP/1.1 400 Bad Request\r\nContent-Length: 5\r\n\r\nhello",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nA: b\r\n\r\n",
       "HTTP/1.0 500 Oops\r\nConnection: close\r\n\r\nbody to the end"},
      3, 20000, FuzzHttpResponse);
}

TEST(RelayFuzzSmoke, Position) {
  RunMutated({EncodePosition(PositionRecord{{3, 4096}, 10, 2})}, 5, 20000, FuzzPosition);
}

TEST(RelayFuzzSmoke, TargetSpec) {
  RunMutated({"telnet://127.0.0.1:4242,http://[::1]:4242/api/put?tag=a=b&include=sys.*",
       "remote-write://h:9/api/v1/write?bearer=x%20y&batch=10&timeout=5s&max_pending=1MiB",
       "influx://h:8086/write?db=a&basic=u:p&exclude=*.tmp"},
      9, 20000, FuzzTargetSpec);
}

}  // namespace
}  // namespace sundial::relay
