// The learning rate at each step: a linear warmup from near 0 to the peak over the first `warmup` steps
// (Adam's early moment estimates are noisy; small first steps keep them from throwing the weights far),
// then either constant at the peak or a cosine decay from the peak to `minimum` at the last step:
//   step < warmup:   peak (step + 1) / warmup
//   after:           minimum + (peak - minimum) (1 + cos(pi r)) / 2,   r = (step - warmup) / (steps - 1 - warmup)
// Steps count from 0; `steps` is the run's total, so the last step (steps - 1) takes `minimum`.
#pragma once

namespace glassbox::train {

enum class ScheduleShape { Cosine, Constant };

struct LearningRateSchedule {
  double peak = 1e-3;
  double minimum = 0.0;  // cosine only
  int warmup = 0;
  int steps = 1;
  ScheduleShape shape = ScheduleShape::Cosine;
};

double learning_rate(const LearningRateSchedule& schedule, int step);

}  // namespace glassbox::train
