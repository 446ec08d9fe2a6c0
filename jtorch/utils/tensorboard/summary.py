"""The ``Summary`` protocol buffers that :class:`SummaryWriter` writes, built from jtorch
tensors, NumPy arrays or Python numbers (the layout of PyTorch's
``torch/utils/tensorboard/summary.py``, so the event files read back the same)."""

from __future__ import annotations

import io

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.plugins.hparams.api_pb2 import (
    DataType,
    Experiment,
    HParamInfo,
    MetricInfo,
    MetricName,
    Status,
)
from tensorboard.plugins.hparams.plugin_data_pb2 import (
    HParamsPluginData,
    SessionEndInfo,
    SessionStartInfo,
)
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._core.dtypes import bfloat16, float16
from ..._tensor import Tensor


def make_np(x) -> np.ndarray:
    """``x`` (a Tensor, a NumPy array or a Python/NumPy scalar) as a NumPy array."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.dtype == bfloat16:
            x = x.to(float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


# ------------------------------------------------------------------ scalars and text
def scalar(name, value, new_style=False, double_precision=False) -> Summary:
    """A one-value summary: ``simple_value``, or with ``new_style`` a float (or double)
    tensor for the ``scalars`` plugin."""
    array = make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). \
            Was given size: {array.size} and {array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    proto = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[number], dtype="DT_FLOAT"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def text(tag, text_string) -> Summary:
    """A string summary for the ``text`` plugin, tagged ``<tag>/text_summary``."""
    plugin_data = SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString())
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", tensor=proto,
                                        metadata=SummaryMetadata(plugin_data=plugin_data))])


# ------------------------------------------------------------------ histograms
def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram summary from already-computed statistics and buckets."""
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None) -> Summary:
    """A histogram summary of ``values`` with ``numpy.histogram``'s ``bins``."""
    return Summary(value=[Summary.Value(
        tag=name, histo=make_histogram(make_np(values).astype(float), bins, max_bins))])


def make_histogram(values, bins, max_bins=None) -> HistogramProto:
    """The HistogramProto of ``values``: buckets merged down to ``max_bins``, trimmed to the
    support of the data plus one empty bucket on the left (TensorBoard keeps right limits)."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, [[0, step - len(counts) % step]])
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    nonzero = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(nonzero, [0, nonzero[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


# ------------------------------------------------------------------ images
def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """N1HW or N3HW images tiled into one 3HW image, ``ncols`` per row."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(float(n) / ncols))
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(array: np.ndarray, input_format: str) -> np.ndarray:
    """An image (``HW``, ``CHW``-like) or a batch (``NCHW``-like, tiled) as an HWC array with
    3 or 4 channels."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shorthand twice. \
            input_format: {input_format}")
    if array.ndim != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different. \
        tensor shape: {array.shape}, input_format: {input_format}")
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = array.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = array.transpose([input_format.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = array.transpose([input_format.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def image(tag, img, dataformats="NCHW") -> Summary:
    """A PNG image summary: float images scale [0, 1] to [0, 255], uint8 ones are kept;
    values are clipped to [0, 255]."""
    array = convert_to_HWC(make_np(img), dataformats)
    scale = 1 if array.dtype == np.uint8 else 255
    array = (array.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(array))])


def make_image(array: np.ndarray) -> Summary.Image:
    """An HWC uint8 array as a PNG ``Summary.Image``."""
    from PIL import Image  # optional heavy dependency (pillow), needed only for images

    height, width, channels = array.shape
    out = io.BytesIO()
    # PyTorch resizes to its own size (rescale=1) with LANCZOS, which keeps every pixel
    Image.fromarray(array).resize((width, height), Image.Resampling.LANCZOS).save(
        out, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels,
                         encoded_image_string=out.getvalue())


def figure_to_image(figures, close=True) -> np.ndarray:
    """A matplotlib figure (CHW uint8 RGB) or a list of figures (NCHW) rendered with Agg."""
    import matplotlib.pyplot as plt  # optional heavy dependency, needed only for add_figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        w, h = figure.canvas.get_width_height()
        rgb = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape([h, w, 4])[:, :, :3]
        if close:
            plt.close(figure)
        return np.moveaxis(rgb, 2, 0)

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


# ------------------------------------------------------------------ hyperparameters
def _plugin_summary(tag: str, **content) -> Summary:
    data = HParamsPluginData(version=hparams_metadata.PLUGIN_DATA_VERSION, **content)
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=hparams_metadata.PLUGIN_NAME, content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


# the hparam value types, in PyTorch's order (a bool is an int, so it is logged as a number)
_HPARAM_KINDS = ((int, float), "number_value", "DATA_TYPE_FLOAT64"), \
    (str, "string_value", "DATA_TYPE_STRING"), (bool, "bool_value", "DATA_TYPE_BOOL")


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The three summaries of the hparams plugin: the experiment (hyperparameter and metric
    names), the session start (the values) and the session end (success)."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError(
            "parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if (k not in hparam_dict or not isinstance(v, list)
                or not all(isinstance(d, type(hparam_dict[k])) for d in v)):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    infos, ssi = [], SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            ssi.hparams[k].number_value = make_np(v)[0]
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        for types, field, data_type in _HPARAM_KINDS:
            if isinstance(v, types):
                setattr(ssi.hparams[k], field, v)
                domain = None
                if k in hparam_domain_discrete:
                    domain = struct_pb2.ListValue(values=[
                        struct_pb2.Value(**{field: d}) for d in hparam_domain_discrete[k]])
                infos.append(HParamInfo(name=k, type=DataType.Value(data_type),
                                        domain_discrete=domain))
                break
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_plugin_summary(hparams_metadata.EXPERIMENT_TAG, experiment=experiment),
            _plugin_summary(hparams_metadata.SESSION_START_INFO_TAG, session_start_info=ssi),
            _plugin_summary(hparams_metadata.SESSION_END_INFO_TAG,
                            session_end_info=SessionEndInfo(
                                status=Status.Value("STATUS_SUCCESS"))))
