// Range-profiler configuration images are built on the host for a named chip,
// so this runs without a GPU.
#include "nestor/profiler/metrics_config.h"

#include <gtest/gtest.h>

using namespace nestor::profiler;

TEST(MetricsConfig, Gh100ImageForTheIssueMetrics) {
  MetricsConfigImage config = build_metrics_config("GH100", default_metrics());
  EXPECT_EQ(config.chip, "GH100");
  EXPECT_EQ(config.metrics.size(), 4u);
  ASSERT_FALSE(config.image.empty());
  EXPECT_GT(config.image.size(), 64u);
  bool any_nonzero = false;
  for (uint8_t b : config.image) any_nonzero |= b != 0;
  EXPECT_TRUE(any_nonzero) << "config image is all zeros";
  EXPECT_EQ(config.passes, 1u) << "the issue's four metrics fit one replay pass on Hopper";
}

TEST(MetricsConfig, MoreMetricsGiveALargerImage) {
  size_t one = build_metrics_config("GH100", {"gpu__time_duration.sum"}).image.size();
  size_t four = build_metrics_config("GH100", default_metrics()).image.size();
  EXPECT_GT(one, 0u);
  EXPECT_GT(four, one);
}

TEST(MetricsConfig, UnknownMetricIsNamed) {
  try {
    build_metrics_config("GH100", {"gpu__time_duration.sum", "sm__warps_actve.avg"});
    FAIL() << "unknown metric accepted";
  } catch (const MetricsConfigError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("unknown metric 'sm__warps_actve.avg'"), std::string::npos) << text;
    EXPECT_NE(text.find("GH100"), std::string::npos) << text;
  }
}

TEST(MetricsConfig, UnknownChipAndEmptyInputs) {
  EXPECT_THROW(build_metrics_config("GX999", default_metrics()), MetricsConfigError);
  EXPECT_THROW(build_metrics_config("GH100", {}), MetricsConfigError);
  EXPECT_THROW(build_metrics_config("", default_metrics()), MetricsConfigError);
  auto chips = supported_chips();
  EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
}

TEST(MetricsConfig, SplitMetricList) {
  EXPECT_EQ(split_metric_list(" a.sum, b.ratio ,,c "), (std::vector<std::string>{"a.sum", "b.ratio", "c"}));
  EXPECT_TRUE(split_metric_list("").empty());
}
