"""Writing (and reading back) Hugging Face safetensors files.

A .safetensors file is:
  u64 (little-endian) N = length of the JSON header in bytes
  N bytes of JSON: {"<tensor>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
                    ..., "__metadata__": {"format": "pt"}}
  the data: each tensor's bytes, row-major, little-endian, at [begin, end)
            counted from the first byte after the header
The header is padded with spaces so the data starts 8-byte aligned (as the
reference library does). Shapes are in PyTorch order (outermost first), so a
[out][in] matrix has shape [out, in].

A model too big for one file is sharded: model-00001-of-00002.safetensors, ...,
plus model.safetensors.index.json mapping each tensor to its file:
  {"metadata": {"total_size": <bytes of all tensor data>}, "weight_map": {name: file}}
"""

import json
import os
import struct

import numpy as np

from floats import bf16_bits_to_f64, f32_to_bf16_bits

DTYPE_SIZES = {"F32": 4, "F16": 2, "BF16": 2}


def encode(array, dtype):
    a = np.ascontiguousarray(array)
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype(np.float32).astype("<f2").tobytes()
    if dtype == "BF16":
        return f32_to_bf16_bits(a).astype("<u2").tobytes()
    raise ValueError(f"unsupported dtype {dtype}")


def decode(data, dtype, shape):
    if dtype == "F32":
        flat = np.frombuffer(data, dtype="<f4").astype(np.float64)
    elif dtype == "F16":
        flat = np.frombuffer(data, dtype="<f2").astype(np.float64)
    elif dtype == "BF16":
        flat = bf16_bits_to_f64(np.frombuffer(data, dtype="<u2"))
    else:
        raise ValueError(f"unsupported dtype {dtype}")
    return flat.reshape(shape)


def write_file(path, tensors, dtype="F32", metadata=None):
    """Write {name: array} to one .safetensors file, all in one dtype.
    Returns the number of tensor-data bytes written."""
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        blob = encode(tensors[name], dtype)
        header[name] = {"dtype": dtype, "shape": list(np.shape(tensors[name])),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = dict(metadata or {"format": "pt"})
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    return offset


def read_file(path):
    """({name: float64 array}, metadata dict) of one .safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        tensors[name] = decode(data[base + begin:base + end], info["dtype"], info["shape"])
    return tensors, metadata


def write_sharded(folder, tensors, n_shards, dtype="F32"):
    """Split {name: array} over n_shards files (in name order, about equal in
    bytes) and write model.safetensors.index.json. Returns the shard names."""
    names = sorted(tensors)
    sizes = [int(np.size(tensors[n])) * DTYPE_SIZES[dtype] for n in names]
    total = sum(sizes)
    files = [f"model-{i + 1:05d}-of-{n_shards:05d}.safetensors" for i in range(n_shards)]
    groups = [dict() for _ in range(n_shards)]
    weight_map = {}
    running = 0
    for name, size in zip(names, sizes):
        shard = min(n_shards - 1, running * n_shards // total)
        groups[shard][name] = tensors[name]
        weight_map[name] = files[shard]
        running += size
    for file, group in zip(files, groups):
        if not group:
            raise ValueError("a shard would be empty; use fewer shards")
        write_file(os.path.join(folder, file), group, dtype)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2, sort_keys=True)
    return files


def read_folder(folder):
    """All tensors of a model folder, single-file or sharded."""
    index_path = os.path.join(folder, "model.safetensors.index.json")
    if not os.path.exists(index_path):
        return read_file(os.path.join(folder, "model.safetensors"))[0]
    with open(index_path) as f:
        index = json.load(f)
    tensors = {}
    for file in sorted(set(index["weight_map"].values())):
        part, _ = read_file(os.path.join(folder, file))
        for name in part:
            if index["weight_map"].get(name) != file:
                raise ValueError(f"{name} found in {file} but the index says {index['weight_map'].get(name)}")
        tensors.update(part)
    if set(tensors) != set(index["weight_map"]):
        raise ValueError("the index and the shards list different tensors")
    return tensors
