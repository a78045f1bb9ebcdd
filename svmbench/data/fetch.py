"""Find a data file, in this order (DESIGN.md "Data"): every directory of ``SVMBENCH_DATA_PATH``,
the cache ``SVMBENCH_DATA`` (default ``~/.cache/svmbench``), then a download from the original
source into the cache. ``SVMBENCH_DOWNLOAD=0`` forbids the network.

Each place may hold the file plain or compressed (``.bz2``, ``.xz``, ``.gz``). The returned content
is always the uncompressed bytes, checked against the pinned sha256 when one is known.
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

from svmbench.data.errors import DataError
from svmbench.data.registry import DataFile, DatasetSpec

COMPRESSIONS = {"": None, ".bz2": bz2.decompress, ".xz": lzma.decompress, ".gz": gzip.decompress}
DOWNLOAD_TIMEOUT_S = 120


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
    entries = os.environ.get("SVMBENCH_DATA_PATH", "").split(os.pathsep)
    return [Path(entry).expanduser() for entry in entries if entry.strip()]


def cache_dir() -> Path:
    return Path(os.environ.get("SVMBENCH_DATA") or "~/.cache/svmbench").expanduser()


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
    if file.url and downloads_allowed(download):
        return _download(file, spec.name)
    raise DataError(_not_found_message(file, spec, download))


def read_uncompressed(path: Path) -> bytes:
    raw = path.read_bytes()
    decompress = COMPRESSIONS.get(path.suffix)
    if decompress is None:
        return raw
    try:
        return decompress(raw)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as err:
        raise DataError(
            f"cannot decompress {path} ({err}); the file is truncated or not really {path.suffix}: "
            "delete it and fetch it again"
        ) from err


def _verified(path: Path, place: str, file: DataFile, dataset: str) -> FetchedFile:
    content = read_uncompressed(path)
    digest = hashlib.sha256(content).hexdigest()
    if file.sha256 and digest != file.sha256:
        fix = {
            "data path": f"replace it with the canonical file{f' from {file.url}' if file.url else ''}"
            ", or remove it from SVMBENCH_DATA_PATH so the cache or a download is used",
            "cache": "delete it and load the dataset again to re-download it",
            "download": f"the file at {file.url} changed or the transfer was corrupted: retry, and if "
            "the upstream file changed on purpose update svmbench/data/checksums.py",
        }[place]
        raise DataError(
            f"checksum mismatch for {dataset!r} file {path} (found in {place}): uncompressed "
            f"content has sha256 {digest}, expected {file.sha256}; {fix}"
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
        lines.append("SVMBENCH_DATA_PATH is not set.")
    lines.append("How to get it:")
    lines.append(
        f"  - put {file.path} (plain or .bz2/.xz/.gz) under a directory listed in SVMBENCH_DATA_PATH "
        "(colon-separated), e.g. SVMBENCH_DATA_PATH=../shared/data"
    )
    if file.url:
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
