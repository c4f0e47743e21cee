// The registry behind nestor/Offers.h.
#include "nestor/Offers.h"

namespace nestor {
namespace {
OfferOracle &slot() {
  static OfferOracle oracle;
  return oracle;
}
} // namespace

void setOfferOracle(OfferOracle oracle) { slot() = std::move(oracle); }

const OfferOracle *offerOracle() { return slot() ? &slot() : nullptr; }

} // namespace nestor
