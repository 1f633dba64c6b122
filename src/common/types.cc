#include "sundial/common/types.h"

#include "sundial/common/coding.h"

namespace sundial {

bool Value::BitEquals(const Value& o) const {
  if (is_int_ != o.is_int_) return false;
  return is_int_ ? i_ == o.i_ : DoubleToBits(d_) == DoubleToBits(o.d_);
}

}  // namespace sundial
