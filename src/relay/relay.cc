#include "sundial/relay/relay.h"

#include <algorithm>

#include "target.h"

namespace sundial::relay {

Relay::Relay(const RelayOptions& options, Env* env) : options_(options), env_(env) {}

Relay::~Relay() { Stop(); }

Status Relay::Open(const RelayOptions& options, Env* env, std::unique_ptr<Relay>* out) {
  std::unique_ptr<Relay> relay(new Relay(options, env));
  SUNDIAL_RETURN_IF_ERROR(env->CreateDir(options.dir));
  for (const TargetSpec& spec : relay->options_.targets) {
    auto t = std::make_unique<Target>(spec, relay->options_, env,
                                      relay->options_.dir + "/" + spec.id + ".pos");
    SUNDIAL_RETURN_IF_ERROR(t->Load());
    relay->targets_.push_back(std::move(t));
  }
  *out = std::move(relay);
  return Status::OK();
}

Status Relay::Start(storage::Storage* storage) {
  for (auto& t : targets_) t->Start(storage);
  return Status::OK();
}

void Relay::Stop() {
  for (auto& t : targets_) t->Stop();
}

std::vector<TargetStatus> Relay::TargetStatuses() const {
  std::vector<TargetStatus> out;
  out.reserve(targets_.size());
  for (const auto& t : targets_) out.push_back(t->status());
  return out;
}

uint64_t Relay::OldestWalSegmentNeeded() const {
  uint64_t oldest = storage::kNoWalSegmentNeeded;
  for (const auto& t : targets_) oldest = std::min(oldest, t->needed_segment());
  return oldest;
}

}  // namespace sundial::relay
