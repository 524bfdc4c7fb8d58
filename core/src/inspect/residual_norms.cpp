#include "glassbox/residual_norms.hpp"

#include <cmath>

#include "glassbox/error.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

Result<std::vector<float>> residual_norms(const Session& session, int begin, int end) {
  const ResidualTrace& trace = session.residual_trace();
  if (begin < 0 || end > trace.n_positions() || begin > end)
    return error(ErrorCode::BadArgument, "residual norms: positions ", begin, "..", end, " are outside the ",
                 trace.n_positions(), " read");
  const int layers = trace.n_layers();
  const auto n = static_cast<std::size_t>(end - begin);
  std::vector<float> norms(static_cast<std::size_t>(layers + 1) * n);
  for (int p = begin; p < end; ++p) {
    if (!trace.kept(p))
      return error(ErrorCode::NotRecorded, "residual norms: position ", p,
                   " was not kept (the trace keeps positions ", trace.first_kept(), " on)");
    for (int layer = 0; layer <= layers; ++layer) {
      double sum = 0;
      for (float x : trace.row(layer, p))
        sum += static_cast<double>(x) * x;
      norms[static_cast<std::size_t>(layer) * n + static_cast<std::size_t>(p - begin)] =
          static_cast<float>(std::sqrt(sum));
    }
  }
  return norms;
}

}  // namespace glassbox
