#include "sundial/common/decimal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sundial {
namespace {

TEST(Decimal, Fits) {
  int64_t m = 0;
  EXPECT_TRUE(DecimalFits(12.34, 2, &m));
  EXPECT_EQ(m, 1234);
  EXPECT_FALSE(DecimalFits(12.34, 1, &m));
  EXPECT_TRUE(DecimalFits(-0.5, 1, &m));
  EXPECT_EQ(m, -5);
  EXPECT_TRUE(DecimalFits(0.0, 0, &m));
  EXPECT_EQ(m, 0);
  EXPECT_FALSE(DecimalFits(-0.0, 0, &m));  // m = 0 would decode to +0.0
  EXPECT_FALSE(DecimalFits(std::nan(""), 0, &m));
  EXPECT_FALSE(DecimalFits(std::numeric_limits<double>::infinity(), 0, &m));
  EXPECT_FALSE(DecimalFits(1e15, 0, &m));  // 16 digits: too long
  EXPECT_TRUE(DecimalFits(999999999999999.0, 0, &m));
  EXPECT_FALSE(DecimalFits(0.1 + 0.2, 15, &m));  // 0.30000000000000004
}

TEST(Decimal, MinScale) {
  int64_t m = 0;
  EXPECT_EQ(MinDecimalScale(42.0, 0, kMaxDecimalScale, &m), 0);
  EXPECT_EQ(MinDecimalScale(0.125, 0, kMaxDecimalScale, &m), 3);
  EXPECT_EQ(m, 125);
  EXPECT_EQ(MinDecimalScale(0.125, 0, 2, &m), -1);
  EXPECT_EQ(MinDecimalScale(0.125, 4, kMaxDecimalScale, &m), 4);
  EXPECT_EQ(MinDecimalScale(M_PI, 0, kMaxDecimalScale, &m), -1);
  EXPECT_EQ(MinDecimalScale(1e20, 0, kMaxDecimalScale, &m), -1);
  // Every result decodes back to the same bits.
  for (double v : {1.5, -2.25, 123.456, 1e-10, 99.99}) {
    const int s = MinDecimalScale(v, 0, kMaxDecimalScale, &m);
    ASSERT_GE(s, 0) << v;
    EXPECT_EQ(DoubleToBits(DecimalValue(m, s)), DoubleToBits(v)) << v;
  }
}

}  // namespace
}  // namespace sundial
