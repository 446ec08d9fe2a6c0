"""``SummaryWriter``: write scalars, histograms, images, text and hyperparameters to
TensorBoard event files, as ``torch.utils.tensorboard.SummaryWriter`` does."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ..._core.errors import missing_function, not_implemented
from .summary import figure_to_image, histogram, histogram_raw, hparams, image, scalar, text


class FileWriter:
    """Writes ``Event`` protocol buffers to one event file in ``log_dir`` (asynchronously,
    flushed every ``flush_secs`` or when ``max_queue`` events are pending).

    Args:
        log_dir (str): directory of the event file.
        max_queue (int): pending events before an ``add`` call forces a flush.
        flush_secs (int): seconds between automatic flushes.
        filename_suffix (str): suffix of the event file's name.
    """

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self):
        """The directory the event file is written to."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Write ``event`` with ``walltime`` (default: now) and ``step`` if given."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Write a ``Summary`` protocol buffer wrapped in an ``Event``."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        raise not_implemented("torch.utils.tensorboard.FileWriter.add_graph")

    def add_onnx_graph(self, graph, walltime=None):
        raise not_implemented("torch.utils.tensorboard.FileWriter.add_onnx_graph")

    def flush(self):
        """Write pending events to disk."""
        self.event_writer.flush()

    def close(self):
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self):
        """After :meth:`close`, start a new event file in the same directory."""
        self.event_writer.reopen()


def _default_bins() -> list:
    """TensorFlow's histogram bucket limits: +-1e-12 * 1.1**k up to 1e20, and 0."""
    v, buckets = 1e-12, []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


class SummaryWriter:
    """Writes entries to event files in ``log_dir`` for TensorBoard.

    Args:
        log_dir (str): directory of the event files. Default:
            ``runs/<CURRENT_DATETIME>_<HOSTNAME><comment>``.
        comment (str): suffix of the default ``log_dir`` (ignored when ``log_dir`` is given).
        purge_step (int): when resuming at step T, events of step >= T written before are
            hidden by TensorBoard.
        max_queue (int): pending events before an ``add`` call forces a flush.
        flush_secs (int): seconds between automatic flushes.
        filename_suffix (str): suffix of the event files' names.

    Example::

        >>> with SummaryWriter("runs/exp1") as writer:
        ...     for step in range(100):
        ...         writer.add_scalar("loss", 1.0 / (step + 1), step)

    Differences from PyTorch:
        Not implemented (each raises NotImplementedError naming the API): ``add_tensor``,
        ``add_image_with_boxes``, ``add_video``, ``add_audio``, ``add_graph``,
        ``add_onnx_graph``, ``add_embedding``, ``add_pr_curve``, ``add_pr_curve_raw``,
        ``add_custom_scalars`` (and its ``multilinechart``/``marginchart`` forms),
        ``add_mesh``.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        # the writers are made here and again after close(), on the next add
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The writer of ``log_dir``, made again if the SummaryWriter was closed."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory where event files are written."""
        return self.log_dir

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Log hyperparameters and their metrics for TensorBoard's HParams tab, in a sub-run
        ``<log_dir>/<run_name>`` (default: the current time).

        Args:
            hparam_dict (dict): hyperparameter name -> bool, str, int, float, None or Tensor.
            metric_dict (dict): metric name -> value (also written as scalars in the sub-run).
            hparam_domain_discrete (dict, optional): name -> list of the values it can take.
            run_name (str, optional): name of the sub-run directory.
            global_step (int, optional): step of the records.
        """
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(),
                              run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as sub:
            for summary in summaries:
                sub.file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                sub.add_scalar(k, v, global_step)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number.

        Args:
            tag (str): data identifier.
            scalar_value (float or Tensor): the value (one element).
            global_step (int, optional): step of the record.
            walltime (float, optional): seconds since the epoch (default: now).
            new_style (bool): write a ``scalars``-plugin tensor instead of ``simple_value``.
            double_precision (bool): with ``new_style``, a double instead of a float.
        """
        self._get_file_writer().add_summary(
            scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision),
            global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers on one chart: each goes to its own run,
        ``<log_dir>/<main_tag>_<tag>`` (``/`` in ``main_tag`` becomes ``_``), under tag
        ``main_tag``.

        Args:
            main_tag (str): parent name of the tags.
            tag_scalar_dict (dict): tag -> value.
            global_step (int, optional): step of the records.
            walltime (float, optional): seconds since the epoch (default: now).
        """
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            if run not in self.all_writers:
                self.all_writers[run] = FileWriter(run, self.max_queue, self.flush_secs,
                                                   self.filename_suffix)
            self.all_writers[run].add_summary(scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """Log a histogram of ``values``.

        Args:
            tag (str): data identifier.
            values (Tensor or numpy.ndarray): the values (any shape).
            global_step (int, optional): step of the record.
            bins (str, int or sequence): ``"tensorflow"`` (TensorFlow's exponential buckets)
                or any ``bins`` of ``numpy.histogram`` (``"auto"``, ``"fd"``, a count...).
            walltime (float, optional): seconds since the epoch (default: now).
            max_bins (int, optional): merge adjacent buckets down to at most this many.
        """
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins=max_bins),
                                            global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        """Log a histogram from its statistics and buckets (``bucket_limits`` are the right
        edges, as many as ``bucket_counts``)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts),
            global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Log an image (needs ``pillow``).

        Args:
            tag (str): data identifier.
            img_tensor (Tensor or numpy.ndarray): float in [0, 1] or uint8 in [0, 255].
            global_step (int, optional): step of the record.
            walltime (float, optional): seconds since the epoch (default: now).
            dataformats (str): ``"CHW"``, ``"HWC"``, ``"HW"``, ``"WH"``...

        Shape:
            ``(C, H, W)`` by default, C being 1, 3 or 4.
        """
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """Log a batch of images, tiled 8 per row into one image (needs ``pillow``).

        Shape:
            ``(N, C, H, W)`` by default (``dataformats`` as :meth:`add_image`, with ``N``).
        """
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Render a matplotlib figure (or a list of figures, tiled) and log it as an image.

        Args:
            tag (str): data identifier.
            figure (matplotlib.figure.Figure or list): the figure(s).
            global_step (int, optional): step of the record.
            close (bool): close the figure(s) after rendering.
            walltime (float, optional): seconds since the epoch (default: now).
        """
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime,
                       dataformats="NCHW" if isinstance(figure, list) else "CHW")

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a string (shown as Markdown), under tag ``<tag>/text_summary``."""
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    def flush(self):
        """Write the pending events of every run to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Flush and close every event file; a later ``add`` opens new ones."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


# each raises NotImplementedError naming the PyTorch method
for _name in ("add_tensor", "add_image_with_boxes", "add_video", "add_audio", "add_graph",
              "add_onnx_graph", "add_embedding", "add_pr_curve", "add_pr_curve_raw",
              "add_custom_scalars", "add_custom_scalars_multilinechart",
              "add_custom_scalars_marginchart", "add_mesh"):
    setattr(SummaryWriter, _name,
            missing_function(f"torch.utils.tensorboard.SummaryWriter.{_name}"))
del _name
