"""Regressions found by running deepinv unchanged under jtorch
(scripts/real_drivers/deepinv_recon.py, docs/real-programs.md): each test is a small stand-in
for what the library did, run in jtorch and against real torchvision."""

import bz2
import gzip
import io
import os
import subprocess
import sys
import tarfile
import urllib.request
import zipfile

import pytest
from vision_helpers import torchvision

from jtorch.vision.datasets import utils as jt_utils

tv_utils = torchvision().datasets.utils


def test_datasets_utils_imports_under_the_runner():
    # `import deepinv` stopped with ModuleNotFoundError: its Kohler data set module imports
    # torchvision.datasets.utils.download_and_extract_archive at import time
    code = ("import torchvision; "
            "from torchvision.datasets.utils import download_and_extract_archive, "
            "check_integrity, download_url, extract_archive; "
            "print(download_and_extract_archive.__module__, "
            "torchvision.datasets.utils.__name__)")
    done = subprocess.run([sys.executable, "-m", "jtorch", "-c", code], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["jtorch.vision.datasets.utils"] * 2


def _write_archives(root):
    """The same two files as a .tar.gz, .tgz, .tar.bz2, .zip, .tar, and one as .gz/.bz2."""
    files = {"a.txt": b"alpha\n", "sub/b.bin": bytes(range(256)) * 3}
    for name, mode in (("d.tar.gz", "w:gz"), ("d.tgz", "w:gz"), ("d.tar.bz2", "w:bz2"),
                       ("d.tar", "w")):
        with tarfile.open(root / name, mode) as tar:
            for member, data in files.items():
                info = tarfile.TarInfo(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(root / "d.zip", "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    (root / "one.txt.gz").write_bytes(gzip.compress(files["a.txt"]))
    (root / "one.txt.bz2").write_bytes(bz2.compress(files["a.txt"]))
    return files


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("name", ["d.tar.gz", "d.tgz", "d.tar.bz2", "d.tar", "d.zip",
                                  "one.txt.gz", "one.txt.bz2"])
def test_extract_archive_as_torchvision(tmp_path, name):
    src = tmp_path / "src"
    src.mkdir()
    _write_archives(src)
    results = []
    for which, utils in (("tv", tv_utils), ("jt", jt_utils)):
        dest = tmp_path / which
        dest.mkdir()
        out = utils.extract_archive(str(src / name), str(dest))
        results.append((type(out), os.path.relpath(out, dest), _tree(dest)))
        # a Path in gives a Path out
        (tmp_path / f"{which}-path").mkdir()
        again = utils.extract_archive(src / name, tmp_path / f"{which}-path")
        results.append((type(again).__name__ == type(tmp_path).__name__,))
    assert results[0] == results[2] and results[1] == results[3]
    assert results[0][2]


class _Response(io.BytesIO):
    """What ``urllib.request.urlopen`` returns for an http URL: ``url``, ``length``, ``read``."""

    def __init__(self, data, url):
        super().__init__(data)
        self.url, self.length = url, len(data)


def test_download_and_extract_archive(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    files = _write_archives(src)
    url = "https://example.invalid/data/d.tar.gz"
    asked = []

    def urlopen(request, *args, **kwargs):
        asked.append((request.full_url, request.get_header("User-agent")))
        return _Response((src / "d.tar.gz").read_bytes(), request.full_url)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    md5 = tv_utils.calculate_md5(src / "d.tar.gz")
    assert jt_utils.calculate_md5(src / "d.tar.gz") == md5
    trees = []
    for which, utils in (("tv", tv_utils), ("jt", jt_utils)):
        root = tmp_path / which
        utils.download_and_extract_archive(url, str(root), md5=md5)
        assert utils.check_integrity(root / "d.tar.gz", md5)
        assert not utils.check_integrity(root / "d.tar.gz", "0" * 32)
        assert not utils.check_integrity(root / "missing")
        trees.append(_tree(root))
        # a download whose checksum does not match
        with pytest.raises(RuntimeError, match="File not found or corrupted."):
            utils.download_url(url, str(root), filename="copy.tar.gz", md5="0" * 32)
    assert trees[0] == trees[1]
    assert trees[0]["sub/b.bin"] == files["sub/b.bin"]
    # the same requests (a redirect check, then the download), with torchvision's user agent
    assert asked[:len(asked) // 2] == asked[len(asked) // 2:]
    assert asked[0] == (url, "pytorch/vision")
    # already there with the right checksum: nothing is fetched
    asked.clear()
    for which, utils in (("tv", tv_utils), ("jt", jt_utils)):
        utils.download_url(url, str(tmp_path / which), md5=md5)
    assert asked == []


def test_list_and_verify_str_arg_as_torchvision(tmp_path):
    for name in ("x.png", "y.jpg", "z.png"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "folder").mkdir()
    for args in ((".png",), ((".png", ".jpg"), True)):
        assert sorted(jt_utils.list_files(tmp_path, *args)) == \
            sorted(tv_utils.list_files(tmp_path, *args))
    assert jt_utils.list_dir(tmp_path) == tv_utils.list_dir(tmp_path)
    assert jt_utils.list_dir(str(tmp_path), True) == tv_utils.list_dir(str(tmp_path), True)
    assert jt_utils.iterable_to_str([1, "a"]) == tv_utils.iterable_to_str([1, "a"])
    assert jt_utils.verify_str_arg("train", "split", ("train", "test")) == "train"
    for args in ((3, "split"), (3,), ("val", "split", ("train", "test")),
                 ("val", "split", ["train"], "custom")):
        with pytest.raises(ValueError) as want:
            tv_utils.verify_str_arg(*args)
        with pytest.raises(ValueError) as got:
            jt_utils.verify_str_arg(*args)
        assert str(got.value) == str(want.value)
    for name in ("archive", "a.rar"):
        with pytest.raises(RuntimeError) as want:
            tv_utils.extract_archive(name)
        with pytest.raises(RuntimeError) as got:
            jt_utils.extract_archive(name)
        assert str(got.value) == str(want.value)
