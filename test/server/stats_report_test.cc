#include "stats_report.h"

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

std::vector<StatRecord> Records() {
  std::vector<StatRecord> r(3);
  r[0].name = "relay.lag_seconds";
  r[0].tag_key = "target";
  r[0].tag_value = "http-1";
  r[0].counter = false;
  r[0].fractional = true;
  r[0].real_value = 0.25;
  r[1].name = "relay.last_error";
  r[1].value = 1;
  r[1].tag_key = "target";
  r[1].tag_value = "http-1";
  r[1].counter = false;
  r[1].more_tags.emplace_back("error", "HTTP 401: \"bad\" \\ token\nexpired");
  r[2].name = "rpc.received";
  r[2].value = 12;
  return r;
}

TEST(StatsReport, PrometheusEscapesLabelsAndKeepsFractions) {
  EXPECT_EQ(StatsPrometheus(Records()),
            "# TYPE sundial_relay_lag_seconds gauge\n"
            "sundial_relay_lag_seconds{target=\"http-1\"} 0.250\n"
            "# TYPE sundial_relay_last_error gauge\n"
            "sundial_relay_last_error{target=\"http-1\",error=\"HTTP 401: \\\"bad\\\" \\\\ token\\n"
            "expired\"} 1\n"
            "# TYPE sundial_rpc_received_total counter\n"
            "sundial_rpc_received_total 12\n");
}

TEST(StatsReport, JsonCarriesEveryTag) {
  EXPECT_EQ(StatsJson(Records(), 1700000000, "h1"),
            "[{\"metric\":\"tsd.relay.lag_seconds\",\"timestamp\":1700000000,\"value\":\"0.250\","
            "\"tags\":{\"host\":\"h1\",\"target\":\"http-1\"}},"
            "{\"metric\":\"tsd.relay.last_error\",\"timestamp\":1700000000,\"value\":\"1\","
            "\"tags\":{\"host\":\"h1\",\"target\":\"http-1\",\"error\":"
            "\"HTTP 401: \\\"bad\\\" \\\\ token\\u000Aexpired\"}},"
            "{\"metric\":\"tsd.rpc.received\",\"timestamp\":1700000000,\"value\":\"12\","
            "\"tags\":{\"host\":\"h1\"}}]");
}

TEST(StatsReport, TelnetTagValuesStayOneToken) {
  EXPECT_EQ(StatsTelnet(Records(), 1700000000, "h1"),
            "tsd.relay.lag_seconds 1700000000 0.250 target=http-1 host=h1\n"
            "tsd.relay.last_error 1700000000 1 target=http-1 "
            "error=HTTP_401___bad____token_expired host=h1\n"
            "tsd.rpc.received 1700000000 12 host=h1\n");
}

}  // namespace
}  // namespace sundial::server
