// libFuzzer target: the telnet line framer. Splits the input into reads at
// positions taken from the first bytes, checks that the framer hands out
// exactly the input's complete lines and never crashes.
#include <cstdint>
#include <cstring>
#include <string>

#include "sundial/net/line_framer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t max_line = 1 + data[0] * 4;
  const size_t chunk = 1 + data[1];
  data += 2;
  size -= 2;
  sundial::net::LineFramer f(max_line, 64);
  std::string out;
  size_t pos = 0;
  while (pos < size) {
    size_t n = std::min(chunk, std::min(size - pos, f.write_size()));
    if (n == 0) __builtin_trap();
    memcpy(f.write_data(), data + pos, n);
    pos += n;
    if (f.Commit(n) == sundial::net::LineFramer::Result::kLineTooLong) return 0;
    std::string_view lines = f.CompleteLines();
    if (!lines.empty() && lines.back() != '\n') __builtin_trap();
    out.append(lines);
    f.ConsumeCompleteLines();
  }
  // Everything up to the last newline must have come out unchanged.
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t last = in.rfind('\n');
  const std::string expect = last == std::string::npos ? "" : in.substr(0, last + 1);
  if (out != expect) __builtin_trap();
  return 0;
}
