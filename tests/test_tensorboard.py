"""jtorch.utils.tensorboard.SummaryWriter against real torch's: the same calls on identical
inputs write event files into two temp dirs; read back raw with tensorboard's event loader, the
events of every run directory (tags, steps, values, histogram buckets, PNG bytes and sizes,
text, hparams plugin data) must be equal, wall times and file names aside."""

import datetime
import os
import socket
import sys

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto.event_pb2 import Event
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import jtorch
from jtorch.utils.tensorboard import SummaryWriter as JWriter


def _events(logdir):
    """{run directory relative to logdir: [Event, wall time zeroed]} of every event file."""
    runs = {}
    for root, _, files in os.walk(logdir):
        for name in sorted(f for f in files if "tfevents" in f):
            events = runs.setdefault(os.path.relpath(root, logdir), [])
            for record in RawEventFileLoader(os.path.join(root, name)).Load():
                event = Event.FromString(record)   # as written: no data-compat rewriting
                event.wall_time = 0
                events.append(event)
    return runs


RNG = np.random.default_rng(0)
SAMPLES = RNG.standard_normal(1000).astype(np.float32)
CHW = RNG.random((3, 8, 10)).astype(np.float32)
HWC_U8 = RNG.integers(0, 256, (6, 7, 3)).astype(np.uint8)
HW = (RNG.random((5, 9)) * 1.4 - 0.2).astype(np.float32)  # out of [0, 1]: clipped
BATCH = RNG.random((10, 1, 4, 6)).astype(np.float32)        # 10 images: two rows of 8


def _log_everything(lib, writer):
    """The same calls with library ``lib`` (torch or jtorch) on ``writer``."""
    t = lib.from_numpy
    writer.add_scalar("loss", 0.25, 0)
    writer.add_scalar("loss", t(np.array(0.125, np.float32)), 1, walltime=5.0)
    writer.add_scalar("lr", t(np.array([3e-4])), 2, new_style=True)
    writer.add_scalar("lr64", t(np.array(1 / 3)), 3, new_style=True, double_precision=True)
    writer.add_scalars("group/a", {"x": 1.0, "y": t(np.array(2.5))}, 4)
    writer.add_histogram("w", t(SAMPLES), 5)
    writer.add_histogram("w_auto", t(SAMPLES), 6, bins="auto")
    writer.add_histogram("w_10", t(SAMPLES).double(), 7, bins=10, max_bins=3)
    writer.add_histogram("ints", t(np.arange(-3, 40)), 8, max_bins=7)
    writer.add_histogram_raw("raw", 0.0, 3.0, 4, 6.0, 14.0, [1.0, 2.0, 3.0], [1, 2, 1], 9)
    writer.add_image("chw", t(CHW), 10)
    writer.add_image("hwc_u8", t(HWC_U8), 11, dataformats="HWC")
    writer.add_image("hw", t(HW), 12, dataformats="HW")
    writer.add_image("gray_chw", t(CHW[:1]), 13)
    writer.add_image("bf16", t(CHW).to(lib.bfloat16), 14)
    writer.add_images("batch", t(BATCH), 15)
    writer.add_images("batch_nhwc", t(BATCH.transpose(0, 2, 3, 1)), 16, dataformats="NHWC")
    writer.add_text("note", "**jtorch** writes *text* é", 17)
    writer.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "bn": True, "none": None,
                        "wd": t(np.array([0.01]))},
                       {"hp/acc": 0.9, "hp/loss": t(np.array(0.5))},
                       hparam_domain_discrete={"opt": ["adam", "sgd"], "bs": [16, 32]},
                       run_name="hp", global_step=18)


def test_events_match_torch(tmp_path):
    for lib, cls, name in ((torch, TorchWriter, "torch"), (jtorch, JWriter, "jtorch")):
        with cls(str(tmp_path / name), purge_step=3) as writer:
            _log_everything(lib, writer)
        writer.add_scalar("after_close", 1.0, 19)   # reopens a new event file, as PyTorch
        writer.close()
    expected, got = _events(tmp_path / "torch"), _events(tmp_path / "jtorch")
    assert sorted(got) == sorted(expected) == [".", "group_a_x", "group_a_y", "hp"]
    for run in expected:
        assert len(got[run]) == len(expected[run]), run
        for e, g in zip(expected[run], got[run]):
            assert g == e, (run, str(e)[:300], str(g)[:300])
    # the comparison saw what it is meant to see (both sides non-trivially equal)
    main = {v.tag: (ev.step, v) for ev in expected["."] for v in ev.summary.value}
    assert main["loss"][1].simple_value == 0.125 and main["w"][1].histo.num == 1000
    assert main["batch"][1].image.width == 48 and main["batch"][1].image.height == 8
    text = main["note/text_summary"][1].tensor.string_val[0].decode()
    assert text == "**jtorch** writes *text* é"
    assert main["after_close"][0] == 19


def test_figure_matches_torch(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    for cls, name in ((TorchWriter, "torch"), (JWriter, "jtorch")):
        with cls(str(tmp_path / name)) as writer:
            figures = []
            for k in range(2):
                fig = plt.figure(figsize=(1.5, 1), dpi=40)
                fig.gca().plot([0, 1, 2], [k, 2, 1])
                figures.append(fig)
            writer.add_figure("one", figures[0], 0, close=False)
            writer.add_figure("two", figures, 1)
            assert not plt.get_fignums() or figures[0].number not in plt.get_fignums()
    expected, got = _events(tmp_path / "torch"), _events(tmp_path / "jtorch")
    assert got == expected and len(expected["."]) == 3


def test_default_logdir_and_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = JWriter(comment="_lr0.1")
    writer.close()
    logdir = writer.get_logdir()
    parent, run = os.path.split(logdir)
    suffix = "_" + socket.gethostname() + "_lr0.1"
    assert parent == "runs" and run.endswith(suffix) and os.path.isdir(logdir)
    datetime.datetime.strptime(run[:-len(suffix)], "%b%d_%H-%M-%S")  # torch's format


def test_unsupported_method_names_the_api(tmp_path):
    with JWriter(str(tmp_path)) as writer:
        with pytest.raises(NotImplementedError,
                           match=r"torch\.utils\.tensorboard\.SummaryWriter\.add_graph"):
            writer.add_graph(object())


def test_bad_arguments_raise_like_torch(tmp_path):
    with JWriter(str(tmp_path / "j")) as jw, TorchWriter(str(tmp_path / "t")) as tw:
        for writer, lib in ((jw, jtorch), (tw, torch)):
            with pytest.raises(TypeError, match="should be dictionary"):
                writer.add_hparams([("lr", 0.1)], {})
            with pytest.raises(AssertionError, match="should contain one element"):
                writer.add_scalar("v", lib.ones(2))
            with pytest.raises(AssertionError, match="input tensor and input format"):
                writer.add_image("i", lib.ones(2, 3))


def test_missing_tensorboard_raises_torchs_message(monkeypatch):
    for name in [m for m in sys.modules if m.startswith("jtorch.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)   # as if not installed
    with pytest.raises(ImportError, match="requires TensorBoard version 1.15 or above"):
        from jtorch.utils.tensorboard import SummaryWriter  # noqa: F401
