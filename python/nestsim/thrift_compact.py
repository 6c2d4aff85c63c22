"""Just enough of Thrift's compact protocol to read and rewrite a Parquet footer.

A Parquet footer is a ``FileMetaData`` struct in this encoding. NeSt rewrites footers (see
``parquet_stream``) to append row groups to a file that stays readable; it never needs to know
what most fields mean, so a struct is decoded generically — a list of ``[field_id, type, value]``
in file order — and encoded back byte for byte.

Values: integers for BYTE/I16/I32/I64, ``bytes`` for BINARY and DOUBLE (the 8 raw bytes) and UUID
(16), ``(elem_type, [values])`` for LIST and SET, ``(key_type, value_type, [(k, v)])`` for MAP,
a field list for STRUCT, and for a boolean field its type says the value (TRUE=1, FALSE=2).
Inside a collection a boolean is its raw byte. ``Raw`` holds an element that is already encoded.
"""

from __future__ import annotations

from dataclasses import dataclass

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT, UUID = range(14)


class ThriftError(ValueError):
    """The bytes are not a compact-protocol struct (a torn or foreign footer)."""


@dataclass(frozen=True)
class Raw:
    """A collection element given already encoded (a cached row group)."""
    data: bytes


def _varint(buf, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(buf):
            raise ThriftError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise ThriftError("varint too long")


def _unzigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _value(buf, pos: int, t: int):
    if t in (I16, I32, I64):
        n, pos = _varint(buf, pos)
        return _unzigzag(n), pos
    if t in (BYTE, TRUE, FALSE):  # a boolean here is an element of a collection: its raw byte
        if pos >= len(buf):
            raise ThriftError("truncated byte")
        return buf[pos], pos + 1
    if t in (DOUBLE, UUID):
        end = pos + (8 if t == DOUBLE else 16)
        if end > len(buf):
            raise ThriftError("truncated fixed-size value")
        return bytes(buf[pos:end]), end
    if t == BINARY:
        n, pos = _varint(buf, pos)
        if pos + n > len(buf):
            raise ThriftError("truncated binary")
        return bytes(buf[pos:pos + n]), pos + n
    if t in (LIST, SET):
        if pos >= len(buf):
            raise ThriftError("truncated list")
        head = buf[pos]
        pos += 1
        size, et = head >> 4, head & 0x0F
        if size == 15:
            size, pos = _varint(buf, pos)
        items = []
        for _ in range(size):
            v, pos = _value(buf, pos, et)
            items.append(v)
        return (et, items), pos
    if t == MAP:
        size, pos = _varint(buf, pos)
        if size == 0:
            return (0, 0, []), pos
        if pos >= len(buf):
            raise ThriftError("truncated map")
        kt, vt = buf[pos] >> 4, buf[pos] & 0x0F
        pos += 1
        pairs = []
        for _ in range(size):
            k, pos = _value(buf, pos, kt)
            v, pos = _value(buf, pos, vt)
            pairs.append((k, v))
        return (kt, vt, pairs), pos
    if t == STRUCT:
        return _struct(buf, pos)
    raise ThriftError(f"unknown type {t}")


def decode_struct(buf, pos: int = 0) -> tuple[list, int]:
    """Decodes the struct at ``pos`` of ``buf`` (bytes or any buffer); returns its fields and
    the position after it."""
    # Unsigned bytes whatever the buffer's own format (a pyarrow Buffer's view is signed).
    return _struct(memoryview(buf).cast("B"), pos)


def _struct(buf, pos: int) -> tuple[list, int]:
    fields, last = [], 0
    while True:
        if pos >= len(buf):
            raise ThriftError("truncated struct")
        head = buf[pos]
        pos += 1
        t = head & 0x0F
        if t == STOP:
            return fields, pos
        delta = head >> 4
        if delta:
            fid = last + delta
        else:
            n, pos = _varint(buf, pos)
            fid = _unzigzag(n)
        if t in (TRUE, FALSE):
            v = t == TRUE
        else:
            v, pos = _value(buf, pos, t)
        fields.append([fid, t, v])
        last = fid


def _put_varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _put_value(out: bytearray, t: int, v) -> None:
    if isinstance(v, Raw):
        out += v.data
    elif t in (I16, I32, I64):
        _put_varint(out, _zigzag(v))
    elif t in (BYTE, TRUE, FALSE):
        out.append(v & 0xFF)
    elif t in (DOUBLE, UUID):
        out += v
    elif t == BINARY:
        _put_varint(out, len(v))
        out += v
    elif t in (LIST, SET):
        et, items = v
        if len(items) < 15:
            out.append(len(items) << 4 | et)
        else:
            out.append(0xF0 | et)
            _put_varint(out, len(items))
        for item in items:
            _put_value(out, et, item)
    elif t == MAP:
        kt, vt, pairs = v
        _put_varint(out, len(pairs))
        if pairs:
            out.append(kt << 4 | vt)
            for k, item in pairs:
                _put_value(out, kt, k)
                _put_value(out, vt, item)
    elif t == STRUCT:
        _put_struct(out, v)
    else:
        raise ThriftError(f"unknown type {t}")


def _put_struct(out: bytearray, fields: list) -> None:
    last = 0
    for fid, t, v in fields:
        if t in (TRUE, FALSE):
            t = TRUE if v else FALSE
        if 0 < fid - last <= 15:
            out.append((fid - last) << 4 | t)
        else:
            out.append(t)
            _put_varint(out, _zigzag(fid))
        if t not in (TRUE, FALSE):
            _put_value(out, t, v)
        last = fid
    out.append(STOP)


def encode_struct(fields: list) -> bytes:
    out = bytearray()
    _put_struct(out, fields)
    return bytes(out)


def field(fields: list, fid: int):
    """The value of field ``fid``, or None when the struct does not have it."""
    for f in fields:
        if f[0] == fid:
            return f[2]
    return None
