"""PROTOBUF definition text -> FileDescriptorProto, by protoc itself, in process (grpcio-tools).

protoc compiles a 400-field Debezium envelope in about 3 ms of CPU where the pure-Python ANTLR parser
(`protobuf_text`) takes 60 ms or more, and it resolves type names exactly as every protobuf toolchain does.
It is strict where the registry may not be: a file importing something the registry does not hold, or
naming a type declared nowhere, does not compile. `compile_definition` then answers None and the caller
falls back to the tolerant parser, so no file is read worse than before.

What protoc can import besides the definition itself:
  - the well-known types (google/protobuf/*.proto), shipped with grpcio-tools;
  - small stand-ins (`proto_include/`) for the files the Glue Schema Registry's Kafka Connect converter
    imports (google/type/date.proto, google/type/timeofday.proto, additionalTypes/decimal.proto,
    metadata/metadata.proto) and the other google/type common types. Those types are shown as leaves
    (see `protobuf.WELL_KNOWN`), so only their names matter, not their fields.

protoc reports problems on the process's standard error (file descriptor 2, from C++). Compilation
therefore runs with descriptor 2 pointed at the null device, under a lock: nothing reaches the function's
log stream (the tolerant parser words the warning of a file protoc rejects), and no two compilations share
the scratch directory. For those few milliseconds another thread's writes to standard error are dropped
too; the functions log to standard output. The lock costs nothing: parsing is CPU-bound under the GIL.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

from google.protobuf import descriptor_pb2  # type: ignore[import-untyped]
from grpc_tools import _protoc_compiler  # type: ignore[import-untyped]

INCLUDE = Path(__file__).resolve().parent / "proto_include"
# The definition's own file name: unlikely to collide with anything a definition imports.
SOURCE_NAME = "__registry_definition__.proto"

_LOCK = threading.Lock()
# One private directory per process, by pid: a forked process must not share its parent's. (Lambda's /tmp
# outlives an invocation, so a warm function reuses it.)
_SCRATCH: dict[int, Path] = {}
_NULL: list[int] = []


def _scratch_dir() -> Path:
    pid = os.getpid()
    if pid not in _SCRATCH or not _SCRATCH[pid].is_dir():
        _SCRATCH[pid] = Path(tempfile.mkdtemp(prefix="kafka-lineage-protoc-"))
    return _SCRATCH[pid]


# The well-known types' .proto files, shipped inside grpcio-tools.
WELL_KNOWN_INCLUDE = Path(_protoc_compiler.__file__).resolve().parent / "_proto"


def _discard() -> int:
    """A descriptor on the null device for protoc's diagnostics, opened once per process."""
    if not _NULL:
        _NULL.append(os.open(os.devnull, os.O_WRONLY))
    return _NULL[0]


def compile_definition(definition: str) -> descriptor_pb2.FileDescriptorProto | None:
    """The compiled file with its comments (source info), or None when protoc rejects it."""
    with _LOCK:
        scratch = _scratch_dir()
        source = scratch / SOURCE_NAME
        output = scratch / "out.binpb"
        try:
            source.write_text(definition, encoding="utf-8")
            output.unlink(missing_ok=True)
        except (OSError, UnicodeError):  # e.g. lone surrogates: the tolerant parser reports them
            return None
        arguments = [
            "protoc",
            f"--proto_path={scratch}",
            f"--proto_path={INCLUDE}",
            f"--proto_path={WELL_KNOWN_INCLUDE}",
            "--include_source_info",
            f"--descriptor_set_out={output}",
            SOURCE_NAME,
        ]
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(_discard(), 2)
            status = _protoc_compiler.run_main([argument.encode() for argument in arguments])
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        if status != 0 or not output.is_file():
            return None
        files = descriptor_pb2.FileDescriptorSet.FromString(output.read_bytes())
    return next((file for file in files.file if file.name == SOURCE_NAME), None)
