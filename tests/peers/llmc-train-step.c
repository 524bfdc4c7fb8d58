// Times llm.c's CPU training step (train_gpt2.c: forward, zero_grad, backward, AdamW update) for
// tests/peers/bench-train.mjs. llm.c is not part of this project: its train_gpt2.c is included from the
// folder given to the compiler (-I build-peers/llm.c), with its own TESTING switch, which leaves its main()
// out, so that only its gpt2_* functions are called here. Built by bench-train.mjs with
//   gcc -O3 -march=native -fopenmp -I LLMC_DIR tests/peers/llmc-train-step.c -lm
//
//   llmc-train-step CHECKPOINT ROWS B T STEPS
// CHECKPOINT: a GPT-2 checkpoint in llm.c's format (make-llmc-checkpoint.py). ROWS: little-endian int32
// token ids, rows of T + 1 tokens each (a row's first T are the inputs, its last T the targets); step s
// takes rows s*B .. s*B + B - 1, wrapping around. Prints one JSON object per step on stdout, on a line of
// its own beginning with '{' (llm.c prints its own lines too): {"step", "loss", "seconds",
// "tokens_per_second"}, where the tokens are the B * T positions trained.
#define TESTING
#include "train_gpt2.c"

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s CHECKPOINT ROWS B T STEPS\n", argv[0]);
    return 2;
  }
  const int B = atoi(argv[3]), T = atoi(argv[4]), steps = atoi(argv[5]);
  if (B < 1 || T < 1 || steps < 1) {
    fprintf(stderr, "B, T and STEPS must be positive\n");
    return 2;
  }
  FILE* f = fopen(argv[2], "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", argv[2]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  const long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  const long row_tokens = T + 1, rows = bytes / (long)sizeof(int) / row_tokens;
  if (rows < 1) {
    fprintf(stderr, "%s holds no row of %ld tokens\n", argv[2], row_tokens);
    return 1;
  }
  int* data = (int*)malloc((size_t)(rows * row_tokens) * sizeof(int));
  if (fread(data, sizeof(int), (size_t)(rows * row_tokens), f) != (size_t)(rows * row_tokens)) {
    fprintf(stderr, "short read of %s\n", argv[2]);
    return 1;
  }
  fclose(f);

  GPT2 model;
  gpt2_build_from_checkpoint(&model, argv[1]);
  if (T > model.config.max_seq_len) {
    fprintf(stderr, "T %d is longer than the checkpoint's context %d\n", T, model.config.max_seq_len);
    return 1;
  }
  int* inputs = (int*)malloc((size_t)(B * T) * sizeof(int));
  int* targets = (int*)malloc((size_t)(B * T) * sizeof(int));
  for (int step = 0; step < steps; step++) {
    for (int b = 0; b < B; b++) {
      const int* row = data + ((long)step * B + b) % rows * row_tokens;
      for (int t = 0; t < T; t++) {
        inputs[b * T + t] = row[t];
        targets[b * T + t] = row[t + 1];
      }
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    gpt2_forward(&model, inputs, targets, B, T);
    gpt2_zero_grad(&model);
    gpt2_backward(&model);
    gpt2_update(&model, 1e-4f, 0.9f, 0.999f, 1e-8f, 0.0f, step + 1);
    clock_gettime(CLOCK_MONOTONIC, &end);
    const double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("{\"step\": %d, \"loss\": %f, \"seconds\": %f, \"tokens_per_second\": %f}\n", step, model.mean_loss,
           seconds, (double)(B * T) / seconds);
    fflush(stdout);
  }
  gpt2_free(&model);
  free(inputs);
  free(targets);
  free(data);
  return 0;
}
