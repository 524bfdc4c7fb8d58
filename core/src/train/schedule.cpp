#include "train/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace glassbox::train {

double learning_rate(const LearningRateSchedule& s, int step) {
  if (step < s.warmup) return s.peak * (step + 1) / s.warmup;
  if (s.shape == ScheduleShape::Constant) return s.peak;
  const int decay_steps = s.steps - 1 - s.warmup;
  if (decay_steps <= 0) return s.peak;  // no step left after the warmup to decay over
  const double r = std::min(1.0, static_cast<double>(step - s.warmup) / decay_steps);
  constexpr double kPi = 3.14159265358979323846;
  return s.minimum + (s.peak - s.minimum) * 0.5 * (1.0 + std::cos(kPi * r));
}

}  // namespace glassbox::train
