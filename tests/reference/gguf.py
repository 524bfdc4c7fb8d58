"""A small GGUF v3 writer and reader (the file format of ggml / llama.cpp).

Layout of a file (all little-endian; spec: ggml docs/gguf.md):

  "GGUF"  u32 version=3  u64 tensor_count  u64 kv_count
  kv_count x   key (string)  u32 value_type  value
  tensor_count x   name (string)  u32 n_dims  u64 ne[n_dims]  u32 ggml_type  u64 offset
  zero padding up to a multiple of ALIGNMENT
  tensor data; each tensor starts at `offset` from here, a multiple of ALIGNMENT

A string is a u64 byte length then UTF-8 bytes (no terminator). An array value is
u32 element type, u64 element count, then the elements (arrays may nest).
ALIGNMENT is the uint32 metadata value `general.alignment`, or 32 when absent.

Dimensions are listed innermost first: ne[0] is the row length. So a row-major
NumPy matrix of shape (rows, cols) is written with ne = [cols, rows].

Metadata values are kept as `Value(type, value)` so a reader -> writer copy keeps
each key's exact type. For arrays, value is an `Array(elem_type, items)`; the
items of a nested array are themselves `Array`s.
"""

import struct
from collections import namedtuple

import numpy as np

import floats
import ggml_quants

MAGIC = b"GGUF"
VERSION = 3
DEFAULT_ALIGNMENT = 32

# gguf_metadata_value_type
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)

# struct format of each fixed-size metadata type
_SCALAR_FORMAT = {
    UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
    FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d",
}

# ggml_type numbers of the tensor types this module handles
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0, GGML_Q4_K, GGML_Q6_K, GGML_BF16 = 0, 1, 2, 8, 12, 14, 30
GGML_Q4_1, GGML_Q5_0, GGML_Q5_1, GGML_Q2_K, GGML_Q3_K, GGML_Q5_K = 3, 6, 7, 10, 11, 13
GGML_IQ4_NL, GGML_IQ4_XS = 20, 23
TYPE_NAMES = {GGML_F32: "F32", GGML_F16: "F16", GGML_Q4_0: "Q4_0", GGML_Q8_0: "Q8_0",
              GGML_Q4_K: "Q4_K", GGML_Q6_K: "Q6_K", GGML_BF16: "BF16",
              GGML_Q4_1: "Q4_1", GGML_Q5_0: "Q5_0", GGML_Q5_1: "Q5_1",
              GGML_Q2_K: "Q2_K", GGML_Q3_K: "Q3_K", GGML_Q5_K: "Q5_K",
              GGML_IQ4_NL: "IQ4_NL", GGML_IQ4_XS: "IQ4_XS"}
TYPE_BY_NAME = {name: number for number, name in TYPE_NAMES.items()}
# (values per block, bytes per block) of each type
_BLOCK_SIZES = {
    GGML_F32: (1, 4), GGML_F16: (1, 2), GGML_BF16: (1, 2),
    GGML_Q8_0: (ggml_quants.BLOCK, ggml_quants.Q8_0_BLOCK_BYTES),
    GGML_Q4_0: (ggml_quants.BLOCK, ggml_quants.Q4_0_BLOCK_BYTES),
    GGML_Q4_K: (ggml_quants.K_BLOCK, ggml_quants.Q4_K_BLOCK_BYTES),
    GGML_Q6_K: (ggml_quants.K_BLOCK, ggml_quants.Q6_K_BLOCK_BYTES),
    GGML_Q4_1: (ggml_quants.BLOCK, ggml_quants.Q4_1_BLOCK_BYTES),
    GGML_Q5_0: (ggml_quants.BLOCK, ggml_quants.Q5_0_BLOCK_BYTES),
    GGML_Q5_1: (ggml_quants.BLOCK, ggml_quants.Q5_1_BLOCK_BYTES),
    GGML_Q2_K: (ggml_quants.K_BLOCK, ggml_quants.Q2_K_BLOCK_BYTES),
    GGML_Q3_K: (ggml_quants.K_BLOCK, ggml_quants.Q3_K_BLOCK_BYTES),
    GGML_Q5_K: (ggml_quants.K_BLOCK, ggml_quants.Q5_K_BLOCK_BYTES),
    GGML_IQ4_NL: (ggml_quants.BLOCK, ggml_quants.IQ4_NL_BLOCK_BYTES),
    GGML_IQ4_XS: (ggml_quants.K_BLOCK, ggml_quants.IQ4_XS_BLOCK_BYTES),
}
# The decoders of the block types this module only reads (or takes as EncodedMatrix bytes).
_BLOCK_DECODERS = {
    GGML_Q4_K: ggml_quants.dequantize_q4_k, GGML_Q6_K: ggml_quants.dequantize_q6_k,
    GGML_Q4_1: ggml_quants.dequantize_q4_1, GGML_Q5_0: ggml_quants.dequantize_q5_0,
    GGML_Q5_1: ggml_quants.dequantize_q5_1, GGML_Q2_K: ggml_quants.dequantize_q2_k,
    GGML_Q3_K: ggml_quants.dequantize_q3_k, GGML_Q5_K: ggml_quants.dequantize_q5_k,
    GGML_IQ4_NL: ggml_quants.dequantize_iq4_nl, GGML_IQ4_XS: ggml_quants.dequantize_iq4_xs,
}

# general.file_type values (llama_ftype): what most tensors are
FILE_TYPE = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9, "Q2_K": 10,
             "Q3_K_M": 12, "Q4_K_M": 15, "Q5_K_M": 17, "IQ4_NL": 25, "IQ4_XS": 30, "BF16": 32}

Value = namedtuple("Value", "type value")
Array = namedtuple("Array", "elem_type items")
TensorInfo = namedtuple("TensorInfo", "name ne ggml_type offset")


# -- convenient constructors for typed metadata values -------------------------

def u8(v): return Value(UINT8, int(v))
def i8(v): return Value(INT8, int(v))
def u16(v): return Value(UINT16, int(v))
def i16(v): return Value(INT16, int(v))
def u32(v): return Value(UINT32, int(v))
def i32(v): return Value(INT32, int(v))
def u64(v): return Value(UINT64, int(v))
def i64(v): return Value(INT64, int(v))
def f32(v): return Value(FLOAT32, float(v))
def f64(v): return Value(FLOAT64, float(v))
def boolean(v): return Value(BOOL, bool(v))
def string(v): return Value(STRING, str(v))
def array(elem_type, items): return Value(ARRAY, Array(elem_type, list(items)))


# -- encoding -----------------------------------------------------------------

def _encode_string(s):
    raw = s.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _encode_payload(value_type, value):
    """Bytes of one value of the given type (without the type tag)."""
    if value_type == STRING:
        return _encode_string(value)
    if value_type == ARRAY:
        elem_type, items = value
        parts = [struct.pack("<IQ", elem_type, len(items))]
        if elem_type in _SCALAR_FORMAT and elem_type != BOOL:
            # fast path for long numeric arrays (scores, token types)
            fmt = _SCALAR_FORMAT[elem_type]
            parts.append(struct.pack("<%d%s" % (len(items), fmt[1]), *items))
        else:
            parts.extend(_encode_payload(elem_type, item) for item in items)
        return b"".join(parts)
    if value_type in _SCALAR_FORMAT:
        return struct.pack(_SCALAR_FORMAT[value_type], value)
    raise ValueError(f"unknown GGUF value type {value_type}")


def _align(offset, alignment):
    return offset + (alignment - offset % alignment) % alignment


class EncodedMatrix:
    """A matrix whose bytes are already in a block format (random K-quant blocks:
    this module has no K-quantizer). `rows` is a uint8 array [n_rows, row_bytes],
    one matrix row per array row, so row permutations and concatenations act on
    it like on a float matrix."""

    def __init__(self, ggml_type, rows, cols):
        per_block, block_bytes = _BLOCK_SIZES[ggml_type]
        if cols % per_block or rows.shape[1] != cols // per_block * block_bytes:
            raise ValueError(f"{rows.shape[1]} bytes is not a row of {cols} {TYPE_NAMES[ggml_type]} values")
        self.ggml_type, self.rows, self.cols = ggml_type, np.ascontiguousarray(rows, dtype=np.uint8), cols

    @classmethod
    def from_bytes(cls, ggml_type, data, n_rows, cols):
        return cls(ggml_type, np.frombuffer(data, dtype=np.uint8).reshape(n_rows, -1), cols)

    @property
    def shape(self):
        return (self.rows.shape[0], self.cols)

    def with_rows(self, rows):
        return EncodedMatrix(self.ggml_type, rows, self.cols)

    def decode(self):
        return decode_tensor(self.rows.tobytes(), [self.cols, self.rows.shape[0]], self.ggml_type)


def encode_tensor(array_2d_or_1d, ggml_type):
    """Bytes of a tensor in the given ggml type, rows (last NumPy axis) contiguous."""
    if isinstance(array_2d_or_1d, EncodedMatrix):
        if array_2d_or_1d.ggml_type != ggml_type:
            raise ValueError("an EncodedMatrix is written in its own type")
        return array_2d_or_1d.rows.tobytes()
    a = np.ascontiguousarray(array_2d_or_1d)
    if ggml_type == GGML_F32:
        return a.astype("<f4").tobytes()
    if ggml_type == GGML_F16:
        return a.astype(np.float32).astype("<f2").tobytes()
    if ggml_type == GGML_BF16:
        return floats.f32_to_bf16_bits(a).astype("<u2").tobytes()
    if a.shape[-1] % ggml_quants.BLOCK:
        raise ValueError(f"row length {a.shape[-1]} is not a multiple of {ggml_quants.BLOCK}")
    if ggml_type == GGML_Q8_0:
        return ggml_quants.quantize_q8_0(a)
    if ggml_type == GGML_Q4_0:
        return ggml_quants.quantize_q4_0(a)
    raise ValueError(f"unsupported ggml type {ggml_type}")


def decode_tensor(data, ne, ggml_type):
    """float64 NumPy array (shape = reversed ne) of a tensor's bytes."""
    count = int(np.prod(ne)) if ne else 1
    if ggml_type == GGML_F32:
        flat = np.frombuffer(data, dtype="<f4", count=count).astype(np.float64)
    elif ggml_type == GGML_F16:
        flat = np.frombuffer(data, dtype="<f2", count=count).astype(np.float64)
    elif ggml_type == GGML_Q8_0:
        flat = ggml_quants.dequantize_q8_0(data, count)
    elif ggml_type == GGML_Q4_0:
        flat = ggml_quants.dequantize_q4_0(data, count)
    elif ggml_type == GGML_BF16:
        flat = floats.bf16_bits_to_f64(np.frombuffer(data, dtype="<u2", count=count))
    elif ggml_type in _BLOCK_DECODERS:
        flat = _BLOCK_DECODERS[ggml_type](data, count)
    else:
        raise ValueError(f"unsupported ggml type {ggml_type}")
    return flat.reshape(tuple(reversed(ne)))


def tensor_nbytes(ne, ggml_type):
    if ggml_type not in _BLOCK_SIZES:
        raise ValueError(f"unsupported ggml type {ggml_type}")
    per_block, block_bytes = _BLOCK_SIZES[ggml_type]
    return int(np.prod(ne)) // per_block * block_bytes


class GGUFWriter:
    """Collects metadata and tensors, then writes one GGUF v3 file.

    Usage:
        w = GGUFWriter(alignment=32)
        w.add("general.architecture", gguf.string("llama"))
        w.add_tensor("token_embd.weight", matrix, gguf.GGML_F32)
        w.write("model.gguf")

    Metadata and tensors are written in the order they were added. An alignment
    other than 32 is recorded as `general.alignment` (uint32), which readers need.
    """

    def __init__(self, alignment=DEFAULT_ALIGNMENT, write_alignment_key=None):
        if alignment % 8:
            raise ValueError("GGUF alignment must be a multiple of 8")
        self.alignment = alignment
        self.metadata = {}
        self.tensors = []  # (name, ne, ggml_type, bytes)
        if write_alignment_key or (write_alignment_key is None and alignment != DEFAULT_ALIGNMENT):
            self.add("general.alignment", u32(alignment))

    def add(self, key, value):
        if not isinstance(value, Value):
            raise TypeError(f"{key}: wrap values in gguf.Value (e.g. gguf.u32(5))")
        self.metadata[key] = value

    def add_tensor(self, name, array, ggml_type=GGML_F32):
        """array: a NumPy array, or an EncodedMatrix (then ggml_type must be its type)."""
        a = array if isinstance(array, EncodedMatrix) else np.asarray(array)
        ne = list(reversed(a.shape))  # innermost (row length) first
        self.tensors.append((name, ne, ggml_type, encode_tensor(a, ggml_type)))

    def to_bytes(self):
        out = bytearray()
        out += MAGIC + struct.pack("<IQQ", VERSION, len(self.tensors), len(self.metadata))
        for key, value in self.metadata.items():
            out += _encode_string(key) + struct.pack("<I", value.type)
            out += _encode_payload(value.type, value.value)
        offset = 0
        for name, ne, ggml_type, data in self.tensors:
            out += _encode_string(name) + struct.pack("<I", len(ne))
            out += struct.pack("<%dQ" % len(ne), *ne)
            out += struct.pack("<IQ", ggml_type, offset)
            offset = _align(offset + len(data), self.alignment)
        out += bytes(_align(len(out), self.alignment) - len(out))
        for _, _, _, data in self.tensors:
            out += data
            out += bytes(_align(len(data), self.alignment) - len(data))
        return bytes(out)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())


class GGUFFile:
    """A parsed GGUF file: `.metadata` (key -> Value), `.tensor_infos` (list of
    TensorInfo), `.data_offset` (absolute file offset of the tensor data) and
    `.tensor(name)` giving a float64 NumPy array (dequantized if needed)."""

    def __init__(self, data):
        self.data = data
        self.pos = 0
        if self._take(4) != MAGIC:
            raise ValueError("not a GGUF file (bad magic)")
        self.version = self._unpack("<I")
        if self.version != VERSION:
            raise ValueError(f"GGUF version {self.version}, expected 3")
        tensor_count = self._unpack("<Q")
        kv_count = self._unpack("<Q")
        self.metadata = {}
        for _ in range(kv_count):
            key = self._string()
            value_type = self._unpack("<I")
            self.metadata[key] = Value(value_type, self._payload(value_type))
        self.tensor_infos = []
        for _ in range(tensor_count):
            name = self._string()
            n_dims = self._unpack("<I")
            ne = [self._unpack("<Q") for _ in range(n_dims)]
            ggml_type = self._unpack("<I")
            offset = self._unpack("<Q")
            self.tensor_infos.append(TensorInfo(name, ne, ggml_type, offset))
        alignment_value = self.metadata.get("general.alignment")
        self.alignment = alignment_value.value if alignment_value else DEFAULT_ALIGNMENT
        self.data_offset = _align(self.pos, self.alignment)

    @classmethod
    def open(cls, path):
        with open(path, "rb") as f:
            return cls(f.read())

    def _take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError(f"GGUF truncated at offset {self.pos}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _unpack(self, fmt):
        return struct.unpack(fmt, self._take(struct.calcsize(fmt)))[0]

    def _string(self):
        return self._take(self._unpack("<Q")).decode("utf-8")

    def _payload(self, value_type):
        if value_type == STRING:
            return self._string()
        if value_type == ARRAY:
            elem_type = self._unpack("<I")
            count = self._unpack("<Q")
            if elem_type in _SCALAR_FORMAT and elem_type != BOOL:
                fmt = _SCALAR_FORMAT[elem_type]
                size = struct.calcsize(fmt)
                items = list(struct.unpack("<%d%s" % (count, fmt[1]), self._take(size * count)))
            else:
                items = [self._payload(elem_type) for _ in range(count)]
            return Array(elem_type, items)
        if value_type in _SCALAR_FORMAT:
            return self._unpack(_SCALAR_FORMAT[value_type])
        raise ValueError(f"unknown GGUF value type {value_type} at offset {self.pos}")

    def info(self, name):
        for t in self.tensor_infos:
            if t.name == name:
                return t
        raise KeyError(name)

    def tensor(self, name):
        t = self.info(name)
        start = self.data_offset + t.offset
        return decode_tensor(self.data[start:start + tensor_nbytes(t.ne, t.ggml_type)], t.ne, t.ggml_type)

    def value(self, key):
        """The plain Python value of a metadata key (arrays as lists)."""
        v = self.metadata[key].value
        return v.items if isinstance(v, Array) else v
