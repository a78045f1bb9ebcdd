"""Find a data file, in this order (docs/DESIGN.md "Data", docs/data-manifest.md): every directory of
``SVMBENCH_DATA_PATH`` (colon-separated; none when it is not set), the cache ``SVMBENCH_DATA``
(default ``~/.cache/svmbench``), then a download from the original source into the cache,
announced on stderr. ``SVMBENCH_DOWNLOAD=0`` forbids the network.

Each place may hold the file plain or compressed (``.bz2``, ``.xz``, ``.gz``). The returned content
is always the uncompressed bytes, checked against the pinned sha256 (every staged file has one).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from svmbench.data.checksums import DIFFERS_FROM_SOURCE
from svmbench.data.errors import DataError
from svmbench.data.registry import DataFile, DatasetSpec

COMPRESSIONS = {"": None, ".bz2": bz2.decompress, ".xz": lzma.decompress, ".gz": gzip.decompress}
DOWNLOAD_TIMEOUT_S = 120
DEFAULT_CACHE = "~/.cache/svmbench"
# the copy of the staged data sets a reader may have (docs/data-manifest.md lists its files)
STAGED = "a staged copy of the data sets (docs/data-manifest.md)"


@dataclass(frozen=True)
class FetchedFile:
    path: Path
    found_in: str  # "data path" | "cache" | "download"
    content: bytes  # uncompressed
    sha256: str

    def record(self, role: str, file: DataFile) -> dict:
        """What ``Dataset.source`` keeps about this file."""
        return {
            "role": role,
            "path": str(self.path),
            "found_in": self.found_in,
            "sha256": self.sha256,
            "pinned_sha256": file.sha256,
            "url": file.url,
        }


def data_path_dirs() -> list[Path]:
    """The directories of ``SVMBENCH_DATA_PATH`` (none when it is not set: the cache only)."""
    entries = os.environ.get("SVMBENCH_DATA_PATH", "").split(os.pathsep)
    return [Path(entry).expanduser() for entry in entries if entry.strip()]


def cache_dir() -> Path:
    """Where downloads go and are found again: ``SVMBENCH_DATA``, default ``~/.cache/svmbench``."""
    return Path(os.environ.get("SVMBENCH_DATA") or DEFAULT_CACHE).expanduser()


def downloads_allowed(download: bool | None = None) -> bool:
    if download is not None:
        return download
    return os.environ.get("SVMBENCH_DOWNLOAD", "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


def candidates(directory: Path, file: DataFile) -> list[Path]:
    return [directory / f"{file.path}{suffix}" for suffix in COMPRESSIONS]


def find_local(file: DataFile) -> tuple[Path, str] | None:
    """The first existing copy in the data path, then the cache, without reading it."""
    places = [(d, "data path") for d in data_path_dirs()] + [(cache_dir(), "cache")]
    for directory, place in places:
        for path in candidates(directory, file):
            if path.is_file():
                return path, place
    return None


def fetch(file: DataFile, spec: DatasetSpec, *, download: bool | None = None) -> FetchedFile:
    """Locate (or download) ``file`` of ``spec`` and return its verified uncompressed content."""
    found = find_local(file)
    if found is not None:
        path, place = found
        return _verified(path, place, file, spec.name)
    if _downloadable(file) and downloads_allowed(download):
        return _download(file, spec.name)
    raise DataError(_not_found_message(file, spec, download))


def _downloadable(file: DataFile) -> bool:
    """A source is known and its file can match the pinned hash."""
    return bool(file.url) and file.path not in DIFFERS_FROM_SOURCE


def read_uncompressed(path: Path, file: DataFile, place: str) -> bytes:
    raw = path.read_bytes()
    decompress = COMPRESSIONS.get(path.suffix)
    if decompress is None:
        return raw
    try:
        return decompress(raw)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as err:
        expected = f" (its content should have sha256 {file.sha256})" if file.sha256 else ""
        raise DataError(
            f"cannot decompress {path} ({err}): the file is truncated or not really "
            f"{path.suffix}{expected}; {_fix_for(place, file)}"
        ) from err


def _fix_for(place: str, file: DataFile) -> str:
    """What to do about a bad copy of ``file`` found in ``place``."""
    staged = f"copy it again from {STAGED}"
    if place == "data path":
        return f"{staged}, or remove its directory from SVMBENCH_DATA_PATH"
    if file.path in DIFFERS_FROM_SOURCE:
        return (f"the original source's file cannot match: the staged copy has "
                f"{DIFFERS_FROM_SOURCE[file.path]}; delete it and {staged}")
    if place == "cache":
        return "delete it and load the dataset again to re-download it"
    return (f"the file at {file.url} changed or the transfer was cut short: retry, and if the "
            "upstream file changed on purpose update svmbench/data/checksums.py")


def _verified(path: Path, place: str, file: DataFile, dataset: str) -> FetchedFile:
    content = read_uncompressed(path, file, place)
    digest = hashlib.sha256(content).hexdigest()
    if file.sha256 and digest != file.sha256:
        raise DataError(
            f"checksum mismatch for {dataset!r} file {path} (found in {place}): its "
            f"{len(content)} uncompressed bytes have sha256 {digest}, expected {file.sha256} "
            f"(truncated, edited or another version); {_fix_for(place, file)}"
        )
    return FetchedFile(path, place, content, digest)


def _download(file: DataFile, dataset: str) -> FetchedFile:
    suffix = next((s for s in COMPRESSIONS if s and file.url.endswith(s)), "")
    target = cache_dir() / f"{file.path}{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    # the temporary name keeps the compression suffix so that it can be verified before the rename
    partial = target.with_name(f".part-{os.getpid()}-{Path(file.path).name}{suffix}")
    print(f"svmbench: downloading {file.url} -> {target}", file=sys.stderr)
    try:
        with (
            urllib.request.urlopen(file.url, timeout=DOWNLOAD_TIMEOUT_S) as response,
            partial.open("wb") as out,
        ):
            shutil.copyfileobj(response, out)
        fetched = _verified(partial, "download", file, dataset)
    except (urllib.error.URLError, OSError) as err:
        partial.unlink(missing_ok=True)
        raise DataError(
            f"downloading {dataset!r} file from {file.url} failed ({err}); check the network or "
            f"download it by hand and put it at {cache_dir() / file.path} (or in a directory of "
            "SVMBENCH_DATA_PATH)"
        ) from err
    except DataError:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)
    if file.sha256 is None:
        print(
            f"svmbench: no pinned sha256 for {file.path}; downloaded content sha256 = "
            f"{fetched.sha256} (recorded in Dataset.source)",
            file=sys.stderr,
        )
    return FetchedFile(target, "download", fetched.content, fetched.sha256)


def _not_found_message(file: DataFile, spec: DatasetSpec, download: bool | None) -> str:
    dirs = data_path_dirs()
    tried = [
        str(path) for directory in [*dirs, cache_dir()] for path in candidates(directory, file)
    ]
    lines = [f"dataset {spec.name!r}: file {file.path} not found. Looked in:"]
    lines += [f"  {path}" for path in tried]
    if not dirs:
        lines.append(f"SVMBENCH_DATA_PATH is not set (default: no directory), so only the cache "
                     f"{cache_dir()} was searched (SVMBENCH_DATA, default {DEFAULT_CACHE}).")
    lines.append("How to get it:")
    lines.append(
        f"  - put {file.path} (plain or .bz2/.xz/.gz) under a directory listed in SVMBENCH_DATA_PATH "
        f"(colon-separated), e.g. export SVMBENCH_DATA_PATH=/path/to/data for {STAGED}"
    )
    if file.url and not _downloadable(file):
        lines.append(f"  - a download from {file.url} would not match the pinned sha256: the "
                     f"staged copy has {DIFFERS_FROM_SOURCE[file.path]}; use {STAGED} instead")
    elif file.url:
        if not downloads_allowed(download):
            lines.append(
                f"  - or allow downloads (unset SVMBENCH_DOWNLOAD, now '0') to fetch {file.url} into "
                f"{cache_dir()}"
            )
        lines.append(
            f"  - or download {file.url} by hand into {cache_dir() / Path(file.path).parent}"
        )
    else:
        lines.append(
            f"  - no direct download is known; get it from {spec.homepage} and store it as {file.path}"
        )
    return "\n".join(lines)
