#include <gtest/gtest.h>
TEST(QueryDiff, Placeholder) { SUCCEED(); }
