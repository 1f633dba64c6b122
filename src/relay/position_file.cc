#include "position_file.h"

#include <cstring>

#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"

namespace sundial::relay {
namespace {
constexpr char kMagic[] = "SUNDRPS1";
}  // namespace

std::string EncodePosition(const PositionRecord& r) {
  std::string out(kPositionFileSize, '\0');
  std::memcpy(&out[0], kMagic, 8);
  EncodeFixed64(&out[8], r.position.segment);
  EncodeFixed64(&out[16], r.position.offset);
  EncodeFixed64(&out[24], r.points_sent);
  EncodeFixed64(&out[32], r.points_dropped);
  EncodeFixed32(&out[40], crc32c::Mask(crc32c::Value(out.data(), 40)));
  return out;
}

bool DecodePosition(std::string_view in, PositionRecord* out) {
  if (in.size() != kPositionFileSize || std::memcmp(in.data(), kMagic, 8) != 0) return false;
  if (crc32c::Unmask(DecodeFixed32(in.data() + 40)) != crc32c::Value(in.data(), 40)) return false;
  out->position.segment = DecodeFixed64(in.data() + 8);
  out->position.offset = DecodeFixed64(in.data() + 16);
  out->points_sent = DecodeFixed64(in.data() + 24);
  out->points_dropped = DecodeFixed64(in.data() + 32);
  return true;
}

Status ReadPositionFile(Env* env, const std::string& path, PositionRecord* out, bool* found) {
  *found = false;
  if (!env->FileExists(path)) return Status::OK();
  std::string data;
  SUNDIAL_RETURN_IF_ERROR(env->ReadFileToString(path, &data));
  if (!DecodePosition(data, out)) return Status::Corruption(path, "damaged relay position file");
  *found = true;
  return Status::OK();
}

Status WritePositionFile(Env* env, const std::string& path, const PositionRecord& r) {
  const std::string tmp = path + ".tmp";
  const std::string data = EncodePosition(r);
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env->OpenFile(tmp, &f));
  SUNDIAL_RETURN_IF_ERROR(f->Truncate(0));
  SUNDIAL_RETURN_IF_ERROR(f->Write(0, data.data(), data.size()));
  f.reset();
  return env->RenameFile(tmp, path);
}

}  // namespace sundial::relay
