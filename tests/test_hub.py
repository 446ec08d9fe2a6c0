"""jtorch.hub against torch.hub: cache folders, local hubconf entry points, checkpoints from
URLs (offline: the network is simulated by replacing ``urlopen``)."""

import hashlib
import io
import os
import urllib.error

import numpy as np
import pytest
import torch
import torch.hub

import jtorch
import jtorch.hub as hub

HUBCONF = '''
import jtorch
dependencies = ["numpy"]


def tiny(n=2, bias=True):
    """A tiny linear layer."""
    jtorch.manual_seed(0)
    return jtorch.nn.Linear(n, 1, bias=bias)


def _private():
    return 0


NOT_CALLABLE = 3
'''


@pytest.fixture
def hub_dir(tmp_path):
    """Both hubs point at one fresh folder; restored after the test."""
    old_j, old_t = hub._hub_dir, torch.hub._hub_dir
    d = str(tmp_path / "hub")
    hub.set_dir(d)
    torch.hub.set_dir(d)
    yield d
    hub._hub_dir, torch.hub._hub_dir = old_j, old_t


class _Response(io.BytesIO):
    """What urlopen returns, for a payload."""

    def info(self):
        n = str(len(self.getvalue()))
        return type("Headers", (), {"get_all": lambda self, k: [n]})()


def _offline(*args, **kwargs):
    raise urllib.error.URLError("no network")


def test_get_dir_default_and_set_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    hub.set_dir("~/somewhere")
    torch.hub.set_dir("~/somewhere")
    assert hub.get_dir() == torch.hub.get_dir() == os.path.expanduser("~/somewhere")


def test_load_list_help_local(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(HUBCONF)
    m = hub.load(str(repo), "tiny", 3, source="local", bias=False)
    assert isinstance(m, jtorch.nn.Linear) and m.in_features == 3 and m.bias is None
    assert hub.list(str(repo), source="local") == ["tiny"]
    assert hub.help(str(repo), "tiny", source="local") == "A tiny linear layer."
    with pytest.raises(RuntimeError, match="Cannot find callable NOT_CALLABLE in hubconf"):
        hub.load(str(repo), "NOT_CALLABLE", source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn"'):
        hub.load(str(repo), "tiny", source="svn")
    (repo / "hubconf.py").write_text(HUBCONF.replace('["numpy"]', '["numpy", "no_such_pkg_x"]'))
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_x"):
        hub.load(str(repo), "tiny", source="local")


def test_local_hubconf_matches_torch_hub(tmp_path):
    """The same hubconf (written for torch) through torch.hub and through jtorch.hub."""
    repo = tmp_path / "repo_t"
    repo.mkdir()
    (repo / "hubconf.py").write_text(HUBCONF.replace("jtorch", "torch"))
    ref = torch.hub.load(str(repo), "tiny", 4, source="local")
    (repo / "hubconf.py").write_text(HUBCONF)
    got = hub.load(str(repo), "tiny", 4, source="local")
    assert type(got).__name__ == type(ref).__name__ and got.weight.shape == ref.weight.shape


def test_github_offline_errors_and_cache(hub_dir, monkeypatch):
    monkeypatch.setattr(hub, "urlopen", _offline)
    with pytest.raises(RuntimeError, match="no internet connection") as e:
        hub.load("someone/somerepo", "tiny", trust_repo=True)
    assert "someone_somerepo_main" in str(e.value)
    with pytest.raises(RuntimeError, match=r"could not download https://github.com/someone/"
                                           r"somerepo/zipball/v1") as e:
        hub.load("someone/somerepo:v1", "tiny", trust_repo=True)
    assert os.path.join(hub_dir, "someone_somerepo_v1") in str(e.value)
    cached = os.path.join(hub_dir, "someone_somerepo_v1")
    os.makedirs(cached)
    with open(os.path.join(cached, "hubconf.py"), "w") as f:
        f.write(HUBCONF)
    m = hub.load("someone/somerepo:v1", "tiny", 5, trust_repo=True, verbose=False)
    assert m.in_features == 5
    assert hub.list("someone/somerepo:v1", trust_repo=True) == ["tiny"]
    with open(os.path.join(hub_dir, "trusted_list")) as f:
        assert f.read().split() == ["someone_somerepo"]


def test_load_state_dict_from_url_cache_download_and_offline(hub_dir, monkeypatch):
    sd = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.tensor([1, 2], dtype=torch.int64)}
    buf = io.BytesIO()
    torch.save(sd, buf)
    payload = buf.getvalue()
    digest = hashlib.sha256(payload).hexdigest()
    name = f"ckpt-{digest[:8]}.pth"
    url = f"https://example.invalid/models/{name}"
    monkeypatch.setattr(hub, "urlopen", _offline)
    with pytest.raises(RuntimeError) as e:
        hub.load_state_dict_from_url(url)
    path = os.path.join(hub_dir, "checkpoints", name)
    assert f"put the file {name} at {path}" in str(e.value) and url in str(e.value)
    served = []

    def serve(req, *a, **k):
        served.append(req.full_url)
        return _Response(payload)
    monkeypatch.setattr(hub, "urlopen", serve)
    got = hub.load_state_dict_from_url(url, check_hash=True, progress=False)
    assert served == [url] and os.path.isfile(path)
    ref = torch.hub.load_state_dict_from_url(url, check_hash=True)  # from the same cache file
    assert set(got) == set(ref) == {"w", "b"}
    for k in ref:
        np.testing.assert_array_equal(got[k].numpy(), ref[k].numpy())
        assert str(got[k].dtype) == str(ref[k].dtype)
    hub.load_state_dict_from_url(url)  # cached: no second download
    assert len(served) == 1
    bad = url.replace(digest[:8], "deadbeef")
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        hub.load_state_dict_from_url(bad, check_hash=True, progress=False)
    assert not os.path.exists(os.path.join(hub_dir, "checkpoints", bad.rsplit("/", 1)[1]))
    dst = os.path.join(hub_dir, "plain.bin")
    hub.download_url_to_file(url, dst, progress=False)
    with open(dst, "rb") as f:
        assert f.read() == payload


def test_model_zoo_load_url_is_load_state_dict_from_url():
    """pytorch-fid's inception.py imports ``torch.utils.model_zoo.load_url`` (reached from
    denoising-diffusion-pytorch's repaint.py); jtorch had no torch.utils.model_zoo."""
    import torch.utils.model_zoo as torch_zoo

    import jtorch.utils.model_zoo as zoo
    assert torch_zoo.load_url is torch.hub.load_state_dict_from_url
    assert zoo.load_url is hub.load_state_dict_from_url
    assert {n for n in dir(torch_zoo) if not n.startswith("_")} <= set(dir(zoo))
