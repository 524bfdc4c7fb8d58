"""Random-weight GGUF files standing in for the hub catalog's models (web/hub-models.json) in the browser tests.

    /usr/bin/python3 tests/browser/write_hub_models.py OUTDIR SHAPE=RELATIVE/PATH ...

Each SHAPE (llama, llama3, qwen2, qwen3, gpt2, gemma3) is written by the NumPy
reference (tests/reference) at OUTDIR/RELATIVE/PATH, the path the real file has on the hub, so a local
server can stand in for huggingface.co. Tiny shapes (configs.HF_*), seeded: the same bytes every run.
A shape the reference cannot write yet is reported and skipped (exit status 0), so adding it is a change
to the reference only.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))

import configs  # noqa: E402
import gguf_export  # noqa: E402
import tiny_vocab  # noqa: E402
from random_model import random_weights  # noqa: E402

# shape -> (config name in configs.py, writer in gguf_export.py, tokenizer pre-tokenizer name)
SHAPES = {
    "llama": ("HF_LLAMA", "write_llama", "llama-bpe"),
    "llama3": ("HF_LLAMA3", "write_llama", "llama-bpe"),  # Llama 3.x: rope_freqs.weight
    "qwen2": ("HF_QWEN2", "write_qwen2", "qwen2"),
    "qwen3": ("HF_QWEN3", "write_qwen3", "qwen2"),
    "gpt2": ("HF_GPT2", "write_gpt2", "gpt-2"),
    "gemma3": ("GEMMA3", "write_gemma3", "gpt-2"),
}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = argv[0]
    for seed, pair in enumerate(argv[1:], start=700):
        shape, _, relative = pair.partition("=")
        config_name, writer_name, pre = SHAPES[shape]
        base = getattr(configs, config_name, None)
        writer = getattr(gguf_export, writer_name, None)
        if base is None or writer is None:
            print(f"skipped {shape}: the reference has no {config_name} / {writer_name} yet")
            continue
        path = os.path.join(outdir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        cfg = configs.as_float32_file(base)
        writer(path, cfg, random_weights(cfg, seed), f"hub-{shape}", tiny_vocab.bpe_metadata(pre))
        print(f"wrote {shape} {relative}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
