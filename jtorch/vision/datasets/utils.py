"""``torchvision.datasets.utils``: checksums, downloads, archive extraction and argument checks,
with torchvision 0.28's names, arguments and messages (data-set libraries such as deepinv
import ``download_and_extract_archive`` at import time).

Differences from torchvision: downloads show no progress bar, and Google Drive links need
``gdown`` as in torchvision.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import pathlib
import re
import tarfile
import urllib.error
import urllib.request
import zipfile
from urllib.parse import urlparse

__all__ = ["calculate_md5", "check_integrity", "check_md5", "download_and_extract_archive",
           "download_file_from_google_drive", "download_url", "extract_archive",
           "iterable_to_str", "list_dir", "list_files", "verify_str_arg"]

USER_AGENT = "pytorch/vision"


def _urlopen(url, timeout=30):
    """The response of a GET of ``url`` (torchvision's User-Agent): the one network seam of
    the data sets, so tests can simulate the network."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - data-set URLs


def _urlretrieve(url, filename, chunk_size=1024 * 32):
    """Download ``url`` to ``filename`` through a ``.part`` file renamed when complete, so a
    failed download leaves no half-written file under the name."""
    part = f"{filename}.part"
    try:
        with _urlopen(url) as response, open(part, "wb") as fh:
            while chunk := response.read(chunk_size):
                fh.write(chunk)
    except BaseException:
        if os.path.exists(part):
            os.remove(part)
        raise
    os.replace(part, filename)


def calculate_md5(fpath, chunk_size=1024 * 1024):
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while chunk := f.read(chunk_size):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    if not os.path.isfile(fpath):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def _get_redirect_url(url, max_hops=3):
    initial_url = url
    headers = {"Method": "HEAD", "User-Agent": USER_AGENT}
    for _ in range(max_hops + 1):
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request) as response:  # noqa: S310
            if response.url == url or response.url is None:
                return url
            url = response.url
    raise RecursionError(f"Request to {initial_url} exceeded {max_hops} redirects. The last "
                         f"redirect points to {url}.")


def _get_google_drive_file_id(url):
    parts = urlparse(url)
    if re.match(r"(drive|docs)[.]google[.]com", parts.netloc) is None:
        return None
    match = re.match(r"/file/d/(?P<id>[^/]*)", parts.path)
    return None if match is None else match.group("id")


def _prepare(root, filename, default):
    root = os.path.expanduser(root)
    fpath = os.fspath(os.path.join(root, filename or default))
    os.makedirs(root, exist_ok=True)
    return root, fpath


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Download a file from ``url`` into ``root`` (as ``filename``, by default the URL's
    basename), unless a file with the right ``md5`` is already there."""
    root, fpath = _prepare(root, filename, os.path.basename(url))
    if check_integrity(fpath, md5):
        return
    url = _get_redirect_url(url, max_hops=max_redirect_hops)
    file_id = _get_google_drive_file_id(url)
    if file_id is not None:
        return download_file_from_google_drive(file_id, root, filename, md5)
    try:
        _urlretrieve(url, fpath)
    except (urllib.error.URLError, OSError):
        if url[:5] != "https":
            raise
        _urlretrieve(url.replace("https:", "http:"), fpath)
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


def list_dir(root, prefix=False):
    """The directories in ``root`` (with ``root`` prepended if ``prefix``)."""
    root = os.path.expanduser(root)
    names = [p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))]
    return [os.path.join(root, d) for d in names] if prefix is True else names


def list_files(root, suffix, prefix=False):
    """The files in ``root`` whose names end with ``suffix`` (a string or a tuple)."""
    root = os.path.expanduser(root)
    names = [p for p in os.listdir(root)
             if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix)]
    return [os.path.join(root, d) for d in names] if prefix is True else names


def download_file_from_google_drive(file_id, root, filename=None, md5=None):
    """Download a Google Drive file (by ``gdown``) into ``root``."""
    try:
        import gdown  # noqa: PLC0415 - optional, as in torchvision
    except ModuleNotFoundError:
        raise RuntimeError("To download files from GDrive, 'gdown' is required. You can install "
                           "it with 'pip install gdown'.") from None
    _, fpath = _prepare(root, filename, file_id)
    if check_integrity(fpath, md5):
        return
    gdown.download(id=file_id, output=fpath, quiet=False, user_agent=USER_AGENT)
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


def _extract_tar(from_path, to_path, compression):
    with tarfile.open(from_path, f"r:{compression[1:]}" if compression else "r") as tar:
        tar.extractall(to_path)  # noqa: S202 - torchvision's behaviour


_ZIP_COMPRESSION_MAP = {".bz2": zipfile.ZIP_BZIP2, ".xz": zipfile.ZIP_LZMA}


def _extract_zip(from_path, to_path, compression):
    mode = _ZIP_COMPRESSION_MAP[compression] if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(from_path, "r", compression=mode) as archive:
        archive.extractall(to_path)  # noqa: S202


_ARCHIVE_EXTRACTORS = {".tar": _extract_tar, ".zip": _extract_zip}
_COMPRESSED_FILE_OPENERS = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}
_FILE_TYPE_ALIASES = {".tbz": (".tar", ".bz2"), ".tbz2": (".tar", ".bz2"),
                      ".tgz": (".tar", ".gz")}


def _detect_file_type(file):
    """``(suffix, archive type, compression)`` of ``file`` from its name."""
    suffixes = pathlib.Path(file).suffixes
    if not suffixes:
        raise RuntimeError(f"File '{file}' has no suffixes that could be used to detect the "
                           "archive type and compression.")
    suffix = suffixes[-1]
    if suffix in _FILE_TYPE_ALIASES:
        return (suffix, *_FILE_TYPE_ALIASES[suffix])
    if suffix in _ARCHIVE_EXTRACTORS:
        return suffix, suffix, None
    if suffix in _COMPRESSED_FILE_OPENERS:
        if len(suffixes) > 1 and suffixes[-2] in _ARCHIVE_EXTRACTORS:
            return suffixes[-2] + suffix, suffixes[-2], suffix
        return suffix, None, suffix
    valid = sorted(set(_FILE_TYPE_ALIASES) | set(_ARCHIVE_EXTRACTORS)
                   | set(_COMPRESSED_FILE_OPENERS))
    raise RuntimeError(f"Unknown compression or archive type: '{suffix}'.\nKnown suffixes are: "
                       f"'{valid}'.")


def _decompress(from_path, to_path=None, remove_finished=False):
    suffix, archive_type, compression = _detect_file_type(from_path)
    if not compression:
        raise RuntimeError(f"Couldn't detect a compression from suffix {suffix}.")
    if to_path is None:
        to_path = pathlib.Path(os.fspath(from_path).replace(suffix, archive_type or ""))
    with _COMPRESSED_FILE_OPENERS[compression](from_path, "rb") as rfh, \
            open(to_path, "wb") as wfh:
        wfh.write(rfh.read())
    if remove_finished:
        os.remove(from_path)
    return pathlib.Path(to_path)


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Extract (or only decompress) ``from_path`` into ``to_path`` (by default its directory),
    the archive type and compression read from its name; returns ``to_path`` (a string for a
    string ``from_path``)."""
    if to_path is None:
        to_path = os.path.dirname(from_path)
    suffix, archive_type, compression = _detect_file_type(from_path)
    if not archive_type:
        out = _decompress(from_path,
                          os.path.join(to_path, os.path.basename(from_path).replace(suffix, "")),
                          remove_finished=remove_finished)
    else:
        _ARCHIVE_EXTRACTORS[archive_type](from_path, to_path, compression)
        if remove_finished:
            os.remove(from_path)
        out = pathlib.Path(to_path)
    return os.fspath(out) if isinstance(from_path, str) else out


def download_and_extract_archive(url, download_root, extract_root=None, filename=None,
                                 md5=None, remove_finished=False):
    download_root = os.path.expanduser(download_root)
    if extract_root is None:
        extract_root = download_root
    if not filename:
        filename = os.path.basename(url)
    download_url(url, download_root, filename, md5)
    extract_archive(os.path.join(download_root, filename), extract_root, remove_finished)


def iterable_to_str(iterable):
    return "'" + "', '".join([str(item) for item in iterable]) + "'"


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    if not isinstance(value, str):
        msg = ("Expected type str, but got type {type}." if arg is None
               else "Expected type str for argument {arg}, but got type {type}.")
        raise ValueError(msg.format(type=type(value), arg=arg))
    if valid_values is None or value in valid_values:
        return value
    if custom_msg is None:
        custom_msg = (f"Unknown value '{value}' for argument {arg}. Valid values are "
                      f"{{{iterable_to_str(valid_values)}}}.")
    raise ValueError(custom_msg)
