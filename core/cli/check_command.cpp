// glassbox check: is this model file sound? Opening it (with its tokenizer) verifies the header, every tensor's
// shape, type and byte range, and that the tokenizer fits the vocabulary; check_weights then reads every value
// and names each tensor holding NaN or infinity. Exit status 1 when anything is wrong.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "glassbox/weights_check.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  bool json = false;
};

void print_json(const Model& model, const WeightsCheck& check) {
  JsonWriter json;
  json.begin_object().key("architecture").string(model.config.architecture);
  json.key("parameters").integer(model.parameter_count()).key("tensors").begin_array();
  for (const TensorCheck& t : check.tensors) {
    json.begin_object().key("name").string(t.name).key("type").string(to_string(t.type));
    json.key("shape").begin_array().integer(t.rows).integer(t.cols).end_array();
    json.key("nan").integer(t.nan).key("infinite").integer(t.infinite).key("max_abs").number(t.max_abs);
    json.end_object();
  }
  json.end_array().key("non_finite_tensors").integer(check.non_finite_tensors).end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

Result<void> check(const Options& o) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(o.model));
  const Model& model = *loaded.model;
  const WeightsCheck result = check_weights(model);
  if (o.json) {
    print_json(model, result);
  } else {
    for (const TensorCheck& t : result.tensors)
      std::printf("%s %s\n", t.finite() ? "ok  " : "BAD ", describe(t).c_str());
  }
  if (result.non_finite_tensors > 0) {
    const TensorCheck* first = nullptr;
    for (const TensorCheck& t : result.tensors)
      if (!first && !t.finite()) first = &t;
    return error(ErrorCode::Malformed, o.model.model, ": ", result.non_finite_tensors,
                 " tensor(s) hold NaN or infinite values, the first ", describe(*first));
  }
  std::fprintf(stderr,
               "%s: %zu tensors, %lld parameters, shapes and sizes as the file says, every value finite\n",
               o.model.model.c_str(), result.tensors.size(), static_cast<long long>(model.parameter_count()));
  return ok();
}

}  // namespace

Command add_check_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "check",
      "Verifies a model file: header, tensor shapes and sizes, tokenizer, and that every weight is finite");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_flag(
      "--json", options->json,
      "print JSON: {architecture, parameters, tensors: [{name, type, shape, nan, infinite, max_abs}], "
      "non_finite_tensors}");
  return {app, [options] { return check(*options); }};
}

}  // namespace glassbox::cli
