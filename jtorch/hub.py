"""``torch.hub``: load models from a ``hubconf.py`` and checkpoints from URLs, with PyTorch's
cache layout (``<hub dir>/checkpoints/<file name>``, ``<hub dir>/<owner>_<repo>_<ref>``).

``get_dir()`` is ``$TORCH_HOME/hub`` (``$TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch``,
``~/.cache/torch``), the same folder PyTorch uses, so checkpoints PyTorch downloaded load here.

Differences from PyTorch:
    - Without network, a download that fails raises a ``RuntimeError`` that names the URL and
      the exact path where the file (or the repository's files) can be put by hand; PyTorch
      raises the bare ``URLError``.
    - ``load_state_dict_from_url`` reads checkpoints with ``jtorch.load`` (PyTorch's zip format
      and legacy formats it supports).
    - ``list`` and ``help`` also take ``source="local"`` (a folder with a ``hubconf.py``), as
      ``load`` does.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from contextlib import contextmanager
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from ._core.errors import torch_name_fallback
from .serialization import load as _load

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_PATH_SEP_PATTERN = re.compile(r"[/\\]")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024

_hub_dir: str | None = None


def _get_torch_home():
    return os.path.expanduser(os.getenv(
        ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir() -> str:
    """The Torch Hub cache directory: ``set_dir``'s folder, else ``$TORCH_HOME/hub``.

    Returns:
        str: the folder holding ``checkpoints/`` and downloaded repositories.
    """
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    """Sets the Torch Hub directory used to save downloaded models and weights.

    Args:
        d (str or os.PathLike): path to a local folder.
    """
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ------------------------------------------------------------------ hubconf.py entry points
@contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_attr_from_module(module, func_name):
    if func_name not in dir(module):
        return None
    return getattr(module, func_name)


def _check_dependencies(m):
    dependencies = _load_attr_from_module(m, VAR_DEPENDENCY)
    if dependencies is not None:
        missing = [pkg for pkg in dependencies if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(m)
    func = _load_attr_from_module(m, model)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _hub_module(repo_dir):
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose, skip_validation):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        return _get_cache_or_reload(repo_or_dir, force_reload, trust_repo, verbose,
                                    skip_validation)
    return repo_or_dir


def list(github, force_reload=False, skip_validation=False, trust_repo="check",  # noqa: A001
         verbose=True, *, source="github"):
    """The callable entry points (names not starting with ``_``) of a repo's ``hubconf.py``.

    Args:
        github (str): ``"repo_owner/repo_name[:ref]"``, or a folder with ``source="local"``.
        force_reload (bool): discard the cached copy and download again.
        skip_validation (bool): skip the GitHub API check that ``ref`` belongs to the repo.
        trust_repo (bool or str): ``"check"``, ``True`` or ``False`` (as PyTorch).
        verbose (bool): report a cache hit on stderr.
        source (str): ``"github"`` or ``"local"`` (a jtorch extension: PyTorch's ``list``
            has no ``source``).

    Returns:
        list: the entry point names.
    """
    m = _hub_module(_repo_dir(github, source, force_reload, trust_repo, verbose,
                              skip_validation))
    return [f for f in dir(m) if callable(getattr(m, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False,  # noqa: A001
         trust_repo="check", *, source="github"):
    """The docstring of entry point ``model`` of a repo's ``hubconf.py`` (args as ``list``)."""
    repo_dir = _repo_dir(github, source, force_reload, trust_repo, True, skip_validation)
    return _load_entry_from_hubconf(_hub_module(repo_dir), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Calls entry point ``model`` of the ``hubconf.py`` of a GitHub repo or a local folder.

    Args:
        repo_or_dir (str): ``"repo_owner/repo_name[:ref]"`` (``source="github"``) or a folder
            holding ``hubconf.py`` (``source="local"``).
        model (str): the entry point's name.
        *args: passed to the entry point.
        source (str): ``"github"`` or ``"local"``.
        trust_repo, force_reload, verbose, skip_validation: as ``list`` (github only).
        **kwargs: passed to the entry point.

    Returns:
        What the entry point returns.

    Example:
        >>> model = jtorch.hub.load("/path/to/repo", "resnet18", source="local")
    """
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose, skip_validation)
    return _load_local(repo_dir, model, *args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _add_to_sys_path(hubconf_dir):
        m = _import_module(MODULE_HUBCONF, os.path.join(hubconf_dir, MODULE_HUBCONF))
        return _load_entry_from_hubconf(m, model)(*args, **kwargs)


# ------------------------------------------------------------------ GitHub repositories
def _offline_error(url, put_where, cause):
    return RuntimeError(
        f"jtorch.hub could not download {url} ({type(cause).__name__}: {cause}). Without "
        f"network access, put {put_where} by hand.")


def _parse_repo_info(github):
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    repo_owner, repo_name = repo_info.split("/")
    if ref is None:  # main if it exists, else master (as PyTorch)
        try:
            with urlopen(f"https://github.com/{repo_owner}/{repo_name}/tree/main/"):
                ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
        except URLError as e:
            for possible in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{repo_owner}_{repo_name}_{possible}"):
                    ref = possible
                    break
            if ref is None:
                raise RuntimeError(
                    "It looks like there is no internet connection and the repo could not be "
                    f"found in the cache ({get_dir()}). Put the repository's files (with its "
                    f"hubconf.py) in {get_dir()}/{repo_owner}_{repo_name}_main, or use "
                    "source='local' with a folder that has them.") from e
    return repo_owner, repo_name, ref


def _read_url(url):
    with urlopen(url) as r:
        return r.read().decode(r.headers.get_content_charset("utf-8"))


def _validate_not_a_forked_repo(repo_owner, repo_name, ref):
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for url_prefix in (f"https://api.github.com/repos/{repo_owner}/{repo_name}/branches",
                       f"https://api.github.com/repos/{repo_owner}/{repo_name}/tags"):
        page = 0
        while True:
            page += 1
            response = json.loads(_read_url(Request(f"{url_prefix}?per_page=100&page={page}",
                                                    headers=headers)))
            if not response:
                break
            if any(br["name"] == ref or br["commit"]["sha"].startswith(ref)
                   for br in response):
                return
    raise ValueError(f"Cannot find {ref} in https://github.com/{repo_owner}/{repo_name}. "
                     "If it's a commit from a forked repo, please call hub.load() with forked "
                     "repo directly.")


def _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    filepath = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(filepath):
        Path(filepath).touch()
    with open(filepath) as file:
        trusted_repos = tuple(line.strip() for line in file)
    trusted_repos_legacy = next(os.walk(hub_dir))[1]
    owner_name = "_".join([repo_owner, repo_name])
    is_trusted = (owner_name in trusted_repos or owner_name_branch in trusted_repos_legacy
                  or repo_owner in _TRUSTED_REPO_OWNERS)
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories "
            "and as such cannot be downloaded. Do you trust this repository and wish to add it "
            "to the trusted list of repositories (y/N)?")
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - PyTorch's type
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(filepath, "a") as file:
            file.write(owner_name + "\n")


def _safe_extract_zip(zip_file, extract_to):
    extract_to = Path(extract_to).resolve(strict=False)
    for member in zip_file.infolist():
        filename = os.path.normpath(member.filename)
        if filename.startswith(("/", "\\")) or (
                len(filename) >= 2 and filename[1] == ":" and filename[0].isalpha()):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(_PATH_SEP_PATTERN, filename):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (extract_to / filename).resolve(strict=False).is_relative_to(extract_to):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zip_file.extract(member, extract_to)


def _remove_if_exists(path):
    if os.path.isfile(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True,
                         skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_owner, repo_name, ref = _parse_repo_info(github)
    normalized_br = ref.replace("/", "_")
    owner_name_branch = "_".join([repo_owner, repo_name, normalized_br])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    url = f"https://github.com/{repo_owner}/{repo_name}/zipball/{ref}"
    cached_file = os.path.join(hub_dir, normalized_br + ".zip")
    _remove_if_exists(cached_file)
    try:
        if not skip_validation:
            _validate_not_a_forked_repo(repo_owner, repo_name, ref)
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        download_url_to_file(url, cached_file, progress=False)
    except RuntimeError:
        raise
    except (URLError, OSError) as e:
        raise _offline_error(url, f"the repository's files (with its hubconf.py) in {repo_dir}",
                             e) from e
    with zipfile.ZipFile(cached_file) as zf:
        extracted_repo = os.path.join(hub_dir, zf.infolist()[0].filename)
        _remove_if_exists(extracted_repo)
        _safe_extract_zip(zf, hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted_repo, repo_dir)
    return repo_dir


# ------------------------------------------------------------------ files and checkpoints
def _progress_bar(total, disable):
    try:
        from tqdm import tqdm  # optional: PyTorch shows tqdm's bar when it is installed
    except ImportError:
        return None
    return tqdm(total=total, disable=disable, unit="B", unit_scale=True, unit_divisor=1024)


def download_url_to_file(url, dst, hash_prefix=None, progress=True) -> None:
    """Downloads ``url`` to the file ``dst`` (through a temporary file, then moved).

    Args:
        url (str): the URL.
        dst (str): the destination path.
        hash_prefix (str, optional): the SHA256 of the download must start with it.
        progress (bool): show a progress bar on stderr (tqdm, when installed).
    """
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp_dst = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            f = open(tmp_dst, "w+b")  # noqa: SIM115 - closed in finally
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            length = u.info().get_all("Content-Length")
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            bar = _progress_bar(int(length[0]) if length else None, not progress)
            while True:
                buffer = u.read(READ_DATA_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
                if bar is not None:
                    bar.update(len(buffer))
            if bar is not None:
                bar.close()
        f.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def _is_legacy_zip_format(filename):
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Loads the object saved at ``url``, downloading it into ``model_dir`` first if absent.

    Args:
        url (str): the URL of the file.
        model_dir (str, optional): the cache folder; default ``<get_dir()>/checkpoints``.
        map_location (optional): as ``jtorch.load``.
        progress (bool): show a progress bar while downloading.
        check_hash (bool): check a download against the ``-<sha256 prefix>.`` in its name.
        file_name (str, optional): the cached file's name; default the URL's last part.
        weights_only (bool): as ``jtorch.load``.

    Returns:
        The loaded object (a state_dict for checkpoints).

    Example:
        >>> sd = jtorch.hub.load_state_dict_from_url(
        ...     "https://download.pytorch.org/models/resnet18-f37072fd.pth")
    """
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        try:
            download_url_to_file(url, cached_file, hash_prefix, progress=progress)
        except (URLError, OSError) as e:
            raise _offline_error(url, f"the file {filename} at {cached_file}", e) from e
    if _is_legacy_zip_format(cached_file):
        warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in "
                      "favor of default zipfile format introduced in 1.6. Please redo "
                      "torch.save() to save it in the new zipfile format.", FutureWarning,
                      stacklevel=2)
        with zipfile.ZipFile(cached_file) as zf:
            _safe_extract_zip(zf, model_dir)
            cached_file = os.path.join(model_dir, zf.infolist()[0].filename)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.hub")
