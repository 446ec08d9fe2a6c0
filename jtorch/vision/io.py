"""``torchvision.io``: image files as ``uint8`` tensors, decoded and encoded through Pillow.

``read_file``/``write_file`` move a file's bytes to and from a ``uint8`` 1-D tensor.
``decode_image`` (and ``read_image``, ``decode_png``, ``decode_jpeg``, ``decode_webp``) gives a
``C x H x W`` ``uint8`` tensor (``uint16`` for 16-bit PNGs), converted as ``ImageReadMode``
asks; ``encode_png``/``encode_jpeg`` (``write_png``/``write_jpeg``) make PNG and JPEG bytes.

torchvision decodes with libpng, libjpeg-turbo and libwebp in C++; here Pillow decodes (its
libjpeg-turbo and libwebp give the same pixels, and PNG is lossless) and the conversions that
torchvision asks libpng for (gray <-> RGB, palette expansion, alpha) are written out in NumPy
with libpng's arithmetic: its integer ``rgb_to_gray`` weights, and the gamma tables it builds
for that conversion when the file has a ``gAMA`` or ``sRGB`` chunk.

Differences from torchvision:
    - GIF (``decode_gif``, and ``decode_image`` of GIF bytes), AVIF and HEIC (``decode_avif``,
      ``decode_heic``) raise NotImplementedError; read them with ``PIL.Image.open``.
    - Palette PNGs with fewer than 8 bits per pixel decode in mode ``UNCHANGED`` to their
      palette indices, and palette PNGs without a ``tRNS`` chunk get an opaque alpha channel
      (255) in modes ``GRAY_ALPHA``/``RGB_ALPHA``: torchvision 0.28 returns the packed row
      bytes, and uninitialized memory, in those two cases. (1-, 2- and 4-bit gray PNGs get
      torchvision's alpha there: ``2**depth - 1``, e.g. 1.)
    - 16-bit color PNGs converted to gray ignore a ``gAMA``/``sRGB`` chunk (libpng then uses its
      16-bit gamma tables); 8-bit ones follow it as torchvision does.
    - ``device`` other than ``"cpu"`` in ``decode_jpeg`` and non-CPU tensors in ``encode_jpeg``
      (torchvision's nvjpeg paths) raise NotImplementedError: decode on the CPU and move the
      result with ``.to(device)``.
    - Decoded tensors are contiguous ``C x H x W`` arrays (torchvision returns a permuted view
      of an ``H x W x C`` buffer); JPEG/PNG error messages for corrupt files carry Pillow's
      reason as the exception's cause.
    - The video API (``read_video``, ``VideoReader``, ...), gone from torchvision 0.28's
      ``torchvision.io``, is absent here too; reading one of those names raises
      NotImplementedError (an AttributeError too, so ``hasattr`` is False as in torchvision).
"""

from __future__ import annotations

import math
import warnings
from enum import Enum
from io import BytesIO

import numpy as np

from .._core.device import device as _device
from .._core.dtypes import uint8
from .._core.errors import missing_function, missing_names, not_implemented
from .._tensor import Tensor
from ..utils.data import _worker as worker

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "decode_avif",
           "decode_heic", "decode_webp", "decode_gif", "encode_jpeg", "encode_png", "read_file",
           "read_image", "write_file", "write_jpeg", "write_png"]

_PIL_INSTEAD = "PIL.Image.open with transforms.PILToTensor"
decode_gif = missing_function("torchvision.io.decode_gif", _PIL_INSTEAD)
decode_avif = missing_function("torchvision.io.decode_avif", _PIL_INSTEAD)
decode_heic = missing_function("torchvision.io.decode_heic", _PIL_INSTEAD)

# torchvision <= 0.25's video API (torchvision 0.28 has none of these names)
__getattr__ = missing_names("torchvision.io", [
    "read_video", "read_video_timestamps", "write_video", "VideoReader", "VideoMetaData",
    "Timebase"])


class ImageReadMode(Enum):
    """How ``decode_*`` converts the image's channels (a string such as ``"RGB"`` works too).

    - ``UNCHANGED``: the image's own channels (a palette PNG gives its indices)
    - ``GRAY``, ``GRAY_ALPHA``: gray (with alpha), for PNG and JPEG (JPEG: ``GRAY`` only)
    - ``RGB``, ``RGB_ALPHA`` (alias ``RGBA``): color (with alpha; not for JPEG)
    """

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA  # alias, as in torchvision


# ------------------------------------------------------------------------------ tensors
# the names torch's C++ TypeMeta prints where they differ from jtorch's dtype.cpp_name
_TYPEMETA_NAMES = {"uint16": "short unsigned int", "uint32": "unsigned int",
                   "uint64": "long unsigned int"}


def _out(arr):
    """A decoded array as a tensor: a host tensor inside the DataLoader's host mode (no JAX in
    worker processes), else one transfer to the CPU device."""
    arr = np.ascontiguousarray(arr)
    return worker.host_tensor(arr) if worker.host_mode() else worker.to_device(arr)


def _numpy(t):
    return worker.host_value(t) if worker.is_host(t) else t.detach().cpu().numpy()


def _as_mode(mode):
    """An ImageReadMode from a name or a member (only its ``.value`` counts, as torchvision
    passes that on: an int raises AttributeError there and here)."""
    mode = ImageReadMode[mode.upper()] if isinstance(mode, str) else mode
    return ImageReadMode(mode.value)


def _encoded_bytes(data) -> bytes:
    """The bytes of an encoded image tensor, checked as torchvision's decoders check them."""
    _check_contiguous(data)
    if data.dtype != uint8:
        name = _TYPEMETA_NAMES.get(data.dtype.name, data.dtype.cpp_name)
        raise RuntimeError(f"Input tensor must have uint8 data type, got {name}")
    if data.ndim != 1 or data.numel() == 0:
        raise RuntimeError(f"Input tensor must be 1-dimensional and non-empty, got {data.ndim} "
                           f"dims  and {data.numel()} numels.")
    return _numpy(data).tobytes()


def _check_contiguous(data):
    if not data.is_contiguous():
        raise RuntimeError("Input tensor must be contiguous.")


def _image_hwc(input):
    """A ``C x H x W`` uint8 image tensor as an ``H x W x C`` array, checked as torchvision's
    encoders check it."""
    if input.dtype != uint8:
        raise RuntimeError("Input tensor dtype should be uint8")
    if input.ndim != 3:
        raise RuntimeError("Input data should be a 3-dimensional tensor")
    if input.shape[0] not in (1, 3):
        raise RuntimeError(f"The number of channels should be 1 or 3, got: {input.shape[0]}")
    return np.ascontiguousarray(_numpy(input).transpose(1, 2, 0))


def _pil_image(data: bytes, rawmode=None):
    """``data`` opened and decoded by Pillow; ``rawmode`` replaces the unpacker Pillow chose
    (to read both bytes of 16-bit samples, see :func:`_png_samples`)."""
    from PIL import Image  # Pillow is optional: needed only to decode and encode images

    im = Image.open(BytesIO(data))
    if rawmode is not None:
        (tile,) = im.tile
        args = rawmode if isinstance(tile[3], str) else (rawmode, *tile[3][1:])
        im.tile = [tile._replace(args=args) if hasattr(tile, "_replace") else (*tile[:3], args)]
    im.load()
    return im


def _decode_failure(codec, truncated_message, error):
    """torchvision's error for a file Pillow could not decode (Pillow's error as the cause)."""
    from PIL import UnidentifiedImageError

    text = str(error)
    if isinstance(error, (UnidentifiedImageError, EOFError)) or "runcated" in text:
        return RuntimeError(truncated_message)
    return RuntimeError(f"{codec} failed: {text}")


_PIL_ERRORS = (OSError, SyntaxError, ValueError, EOFError)


# ------------------------------------------------------------------------------ files
def read_file(path):
    """The bytes of the file at ``path`` (str or ``pathlib.Path``) as a ``uint8`` 1-D tensor."""
    path = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RuntimeError(f"[Errno {e.errno}] {e.strerror}: '{path}'") from e
    if not data:
        raise RuntimeError("Expected a non empty file")
    return _out(np.frombuffer(data, np.uint8).copy())


def write_file(filename, data) -> None:
    """Writes the ``uint8`` 1-D tensor ``data`` to the file ``filename`` (str or Path)."""
    if data.dtype != uint8:
        raise RuntimeError("Input tensor dtype should be uint8")
    if data.ndim != 1:
        raise RuntimeError("Input data should be a 1-dimensional tensor")
    try:
        with open(str(filename), "wb") as f:
            f.write(_numpy(data).tobytes())
    except OSError as e:
        raise RuntimeError("Error opening output file") from e


# ------------------------------------------------------------------------------ EXIF
def _exif_orientation(exif) -> int:
    """The EXIF orientation tag (1-8), or -1, read as torchvision reads it (OpenCV's parser:
    the first IFD only; anything malformed gives -1)."""
    if not exif:
        return -1
    if exif.startswith(b"Exif\x00\x00"):
        exif = exif[6:]
    n = len(exif)
    order = "little" if exif[:1] == b"I" and (n == 1 or exif[1:2] == b"I") else "big"

    def read(offset, size):
        return 0xFFFF if offset + size - 1 >= n else int.from_bytes(exif[offset:offset + size],
                                                                     order)
    if read(2, 2) != 0x2A:
        return -1
    offset = read(4, 4)
    entries = read(offset, 2)
    offset += 2
    for _ in range(entries):      # 12-byte entries: tag, type, count, value
        tag = read(offset, 2)
        if tag == 0xFFFF:
            break
        if tag == 0x0112:
            return read(offset + 8, 2)
        offset += 12
    return -1


def _apply_orientation(chw, orientation):
    """torchvision's ``exif_orientation_transform`` on a ``C x H x W`` array."""
    if orientation in (5, 6, 7, 8):
        chw = chw.swapaxes(-1, -2)
    flips = {2: (-1,), 3: (-2, -1), 4: (-2,), 6: (-1,), 7: (-2, -1), 8: (-2,)}
    return np.flip(chw, flips[orientation]) if orientation in flips else chw


# ------------------------------------------------------------------------------ PNG
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libpng's png_set_rgb_to_gray(png_ptr, 1, 0.2989, 0.587), in 1/32768 (blue = the rest)
_RED, _GREEN = 29890 * 32768 // 100000, 58700 * 32768 // 100000
_BLUE = 32768 - _RED - _GREEN


def _fixed_reciprocal(a: int) -> int:
    return int(math.floor(1e10 / a + 0.5))    # png_reciprocal (gamma in 1/100000)


def _gamma_significant(g: int) -> bool:
    return not 95000 <= g <= 105000           # png_gamma_significant


def _gamma_table(g: int):
    """libpng's png_build_8bit_table: 8-bit samples raised to ``g / 100000``."""
    v = np.arange(256)
    if not _gamma_significant(g):
        return v
    table = np.floor(255 * np.power(v / 255.0, g * 1e-5) + 0.5).astype(np.int64)
    table[0], table[255] = 0, 255
    return table


def _png_gray(rgb, gamma):
    """libpng's ``png_do_rgb_to_gray`` on ``H x W x 3`` samples. With a file gamma (gAMA or
    sRGB) and 8-bit samples it converts to linear light through its 8-bit tables (libpng then
    takes the screen gamma as the file's inverse, so equal-channel pixels pass unchanged)."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    if rgb.dtype == np.uint16:
        return ((_RED * r + _GREEN * g + _BLUE * b + 16384) >> 15).astype(np.uint16)
    screen = _fixed_reciprocal(gamma) if gamma else None
    if screen is None or not (_gamma_significant(gamma) or _gamma_significant(screen)):
        return ((_RED * r + _GREEN * g + _BLUE * b) >> 15).astype(np.uint8)
    to_linear, from_linear = _gamma_table(screen), _gamma_table(_fixed_reciprocal(screen))
    mixed = (_RED * to_linear[r] + _GREEN * to_linear[g] + _BLUE * to_linear[b] + 16384) >> 15
    return np.where((r == g) & (g == b), r, from_linear[mixed]).astype(np.uint8)


def _png_samples(data: bytes):
    """The PNG's samples as stored (``H x W x C``: gray, gray+alpha, RGB, RGBA, or palette
    indices), its color type, bit depth, palette (256 x 3), palette alpha (256, or None), file
    gamma (in 1/100000, or None) and EXIF orientation.

    Pillow reads 16-bit color PNGs as 8-bit: their samples come from decoding twice with the
    unpackers of both byte orders (each keeps the high byte of its order, so one gives the
    high and one the low byte of the big-endian samples); 16-bit gray+alpha decodes its four
    bytes as RGBA."""
    depth, color_type = data[24], data[25]
    if depth == 16 and color_type in (2, 6):
        rawmode = "RGB" if color_type == 2 else "RGBA"
        im = _pil_image(data, rawmode + ";16B")
        low = np.asarray(_pil_image(data, rawmode + ";16L"), np.uint16)
        samples = np.asarray(im, np.uint16) << 8 | low
    elif depth == 16 and color_type == 4:
        im = _pil_image(data, "RGBA")
        raw = np.asarray(im, np.uint16)
        samples = raw[..., 0::2] << 8 | raw[..., 1::2]
    else:
        im = _pil_image(data)
        samples = np.asarray(im)
        if im.mode == "1":        # libpng expands 1-, 2- and 4-bit gray to 0..255, as Pillow
            samples = samples.astype(np.uint8) * 255
        elif im.mode.startswith("I"):
            samples = samples.astype(np.uint16)
    samples = samples.reshape(*samples.shape[:2], -1)
    palette = alpha = None
    if color_type == 3:
        palette = np.zeros((256, 3), np.uint8)
        entries = np.asarray(im.getpalette() or [], np.uint8).reshape(-1, 3)[:256]
        palette[:len(entries)] = entries
        trns = im.info.get("transparency")
        if trns is not None:
            alpha = np.full(256, 255, np.uint8)
            if isinstance(trns, int):
                alpha[trns] = 0
            else:
                alpha[:len(trns)] = np.frombuffer(trns, np.uint8)[:256]
    gamma = 45455 if "srgb" in im.info else (round(im.info["gamma"] * 100000)
                                             if im.info.get("gamma") else None)
    orientation = _exif_orientation(im.info.get("exif"))
    return samples, color_type, depth, palette, alpha, gamma, orientation


def _png_convert(samples, color_type, depth, palette, alpha, gamma, mode):
    """The channels ``mode`` asks for, as torchvision's libpng transformations make them: a
    ``tRNS`` chunk counts only for palette images, and the alpha added to an image without one
    is ``2**depth - 1`` (1 for 1-bit gray, as torchvision's filler; palette images: 255)."""
    if mode == ImageReadMode.UNCHANGED:
        return samples
    opaque = 255 if color_type == 3 else (1 << depth) - 1
    if color_type == 3:
        color = palette[samples[..., 0]]
        alpha = None if alpha is None else alpha[samples[..., 0]][..., None]
    else:
        has_alpha = color_type in (4, 6)
        color = samples[..., :-1] if has_alpha else samples
        alpha = samples[..., -1:] if has_alpha else None
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA):
        out = _png_gray(color, gamma)[..., None] if color.shape[-1] == 3 else color
    else:
        out = np.repeat(color, 3, axis=-1) if color.shape[-1] == 1 else color
    if mode in (ImageReadMode.GRAY_ALPHA, ImageReadMode.RGB_ALPHA):
        if alpha is None:
            alpha = np.full((*out.shape[:2], 1), opaque, out.dtype)
        out = np.concatenate([out, alpha], axis=-1)
    return out


def _decode_png(data: bytes, mode, apply_exif_orientation):
    if not data.startswith(_PNG_SIGNATURE):
        raise RuntimeError("Content is not png!")
    try:
        samples, *info, orientation = _png_samples(data)
    except _PIL_ERRORS as e:
        raise _decode_failure("decode_png", "Out of bound read in decode_png. Probably, the "
                              "input image is corrupted", e) from e
    chw = _png_convert(samples, *info, mode).transpose(2, 0, 1)
    return _out(_apply_orientation(chw, orientation) if apply_exif_orientation else chw)


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decodes PNG bytes (a ``uint8`` 1-D tensor) into a ``C x H x W`` tensor: ``uint8``, or
    ``uint16`` for 16-bit PNGs.

    Args:
        input (Tensor[1]): the PNG file's bytes
        mode (str or ImageReadMode): the channels to return (default ``UNCHANGED``)
        apply_exif_orientation (bool): rotate/flip as the ``eXIf`` chunk's orientation says
    """
    mode = _as_mode(mode)
    return _decode_png(_encoded_bytes(input), mode, apply_exif_orientation)


def encode_png(input, compression_level=6):
    """The PNG file of a ``C x H x W`` ``uint8`` image (``C`` 1 or 3), as a ``uint8`` 1-D
    tensor; ``compression_level`` 0-9 (zlib's level). Pillow writes the file: other bytes than
    torchvision's libpng, the same pixels."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError("Compression level should be between 0 and 9")
    hwc = _image_hwc(input)
    if hwc.shape[0] == 0 or hwc.shape[1] == 0:
        raise RuntimeError("Invalid IHDR data")
    return _out(_pil_encode(hwc, "PNG", compress_level=compression_level))


def write_png(input, filename, compression_level=6):
    """Writes a ``C x H x W`` ``uint8`` image (``C`` 1 or 3) to the PNG file ``filename``."""
    write_file(filename, encode_png(input, compression_level))


def _pil_encode(hwc, fmt, **options):
    from PIL import Image  # Pillow is optional: needed only to decode and encode images

    buf = BytesIO()
    Image.fromarray(hwc[..., 0] if hwc.shape[-1] == 1 else hwc).save(buf, fmt, **options)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


# ------------------------------------------------------------------------------ JPEG
def _cmyk_to_rgb(cmyk):
    """torchvision's CMYK -> RGB of libjpeg's (Adobe-inverted) CMYK samples."""
    k = cmyk[..., 3:].astype(np.int64)
    v = k * (255 - cmyk[..., :3].astype(np.int64)) + 128
    return np.clip(k - (((v >> 8) + v) >> 8), 0, 255)


def _decode_jpeg_array(data: bytes, mode):
    if len(data) < 2 or data[:2] != b"\xff\xd8":
        if len(data) < 2:
            raise RuntimeError("Image is incomplete or truncated")
        raise RuntimeError(f"Not a JPEG file: starts with 0x{data[0]:02x} 0x{data[1]:02x}")
    if mode not in (ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB):
        raise RuntimeError("The provided mode is not supported for JPEG files")
    from PIL import Image  # Pillow is optional: needed only to decode and encode images

    try:
        im = Image.open(BytesIO(data))
        if mode == ImageReadMode.GRAY and im.mode != "CMYK":
            im.draft("L", im.size)     # libjpeg's own YCbCr -> gray (the Y channel), as there
        im.load()
    except _PIL_ERRORS as e:
        raise _decode_failure("decode_jpeg", "Image is incomplete or truncated", e) from e
    arr = np.asarray(im)
    if im.mode == "CMYK":
        arr = 255 - arr               # Pillow un-inverts Adobe CMYK; libjpeg does not
        if mode != ImageReadMode.UNCHANGED:
            arr = _cmyk_to_rgb(arr)
            if mode == ImageReadMode.GRAY:
                arr = (arr[..., :1] * 19595 + arr[..., 1:2] * 38470 + arr[..., 2:] * 7471
                       + 0x8000) >> 16
            arr = arr.astype(np.uint8)
    arr = arr.reshape(*arr.shape[:2], -1)
    if mode == ImageReadMode.RGB and arr.shape[-1] == 1:
        arr = np.repeat(arr, 3, axis=-1)
    return arr, _exif_orientation(im.info.get("exif"))


def _decode_jpeg(data: bytes, mode, apply_exif_orientation):
    hwc, orientation = _decode_jpeg_array(data, mode)
    chw = hwc.transpose(2, 0, 1)
    return _out(_apply_orientation(chw, orientation) if apply_exif_orientation else chw)


def _cpu_only(dev, api):
    if dev.type != "cpu":
        raise not_implemented(f"{api} on a {dev.type} device (torchvision's nvjpeg path)",
                              f"{api.rsplit('.', 1)[-1]} on the CPU, then .to(device)")


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation=False):
    """Decodes JPEG bytes (a ``uint8`` 1-D tensor, or a list of them) into ``C x H x W``
    ``uint8`` tensor(s).

    Args:
        input (Tensor[1] or list[Tensor[1]]): the JPEG file's bytes, on the CPU
        mode (str or ImageReadMode): ``UNCHANGED``, ``GRAY`` or ``RGB``
        device (str or torch.device): ``"cpu"`` only (torchvision's nvjpeg is not here)
        apply_exif_orientation (bool): rotate/flip as the EXIF orientation says
    """
    if isinstance(device, str):
        device = _device(device)
    mode = _as_mode(mode)
    if isinstance(input, list):
        if len(input) == 0:
            raise ValueError("Input list must contain at least one element")
        if not all(isinstance(t, Tensor) for t in input):
            raise ValueError("All elements of the input list must be tensors.")
        if not all(t.device.type == "cpu" for t in input):
            raise ValueError("Input list must contain tensors on CPU.")
        _cpu_only(device, "torchvision.io.decode_jpeg")
        return [_decode_jpeg(_encoded_bytes(img), mode, apply_exif_orientation)
                for img in input]
    if input.device.type != "cpu":
        raise ValueError("Input tensor must be a CPU tensor")
    _cpu_only(device, "torchvision.io.decode_jpeg")
    return _decode_jpeg(_encoded_bytes(input), mode, apply_exif_orientation)


def _encode_jpeg(input, quality):
    _cpu_only(input.device, "torchvision.io.encode_jpeg")
    hwc = _image_hwc(input)
    if hwc.size == 0:
        raise RuntimeError("Empty JPEG image (DNL not supported)")
    # Pillow's libjpeg-turbo with its defaults (4:2:0 for color) writes torchvision's bytes
    return _out(_pil_encode(hwc, "JPEG", quality=quality))


def encode_jpeg(input, quality=75):
    """The JPEG file(s) of ``C x H x W`` ``uint8`` image(s) (``C`` 1 or 3) as ``uint8`` 1-D
    tensor(s); ``quality`` 1-100. A list of images gives a list."""
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, list):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is "
                             "passed")
        return [_encode_jpeg(image, quality) for image in input]
    return _encode_jpeg(input, quality)


def write_jpeg(input, filename, quality=75):
    """Writes a ``C x H x W`` ``uint8`` image (``C`` 1 or 3) to the JPEG file ``filename``."""
    output = encode_jpeg(input, quality)
    if not isinstance(output, Tensor):
        raise AssertionError   # a list of images, as torchvision's assert
    write_file(filename, output)


# ------------------------------------------------------------------------------ WebP
def _decode_webp(data: bytes, mode):
    if len(data) < 16 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise RuntimeError("WebPGetFeatures failed with error code 3")
    if data[12:16] == b"VP8X" and len(data) > 20 and data[20] & 0x02:
        raise RuntimeError("Animated webp files are not supported.")
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA):
        warnings.warn("Webp does not support grayscale conversions. The returned tensor will be "
                      "in the colorspace of the original image.", stacklevel=3)
    try:
        im = _pil_image(data)
    except _PIL_ERRORS as e:
        raise RuntimeError("WebPDecodeRGB[A] failed.") from e
    rgb = mode == ImageReadMode.RGB or (mode != ImageReadMode.RGB_ALPHA and im.mode != "RGBA")
    hwc = np.asarray(im.convert("RGB" if rgb else "RGBA"))
    return _out(hwc.transpose(2, 0, 1))


def decode_webp(input, mode=ImageReadMode.UNCHANGED):
    """Decodes WebP bytes (a ``uint8`` 1-D tensor) into a ``3 x H x W`` (RGB) or ``4 x H x W``
    (RGBA) ``uint8`` tensor: RGBA for images with alpha unless ``mode`` is ``RGB``, RGBA for
    all with ``RGB_ALPHA``; the gray modes warn and are ignored."""
    return _decode_webp(_encoded_bytes(input), _as_mode(mode))


# ------------------------------------------------------------------------------ any image
_UNSUPPORTED = ("Unsupported image file. Only jpeg, png, webp and gif are currently supported. "
                "For avif and heic format, please rely on `decode_avif` and `decode_heic` "
                "directly.")


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decodes an image, from its bytes (a ``uint8`` 1-D tensor) or a path (str or
    ``pathlib.Path``), into a ``C x H x W`` tensor (``uint8``; ``uint16`` for 16-bit PNGs).

    JPEG, PNG and WebP, recognized by their first bytes (GIF raises NotImplementedError).

    Args:
        input (Tensor or str or pathlib.Path): the encoded bytes, or the file to read
        mode (str or ImageReadMode): the channels to return (default ``UNCHANGED``)
        apply_exif_orientation (bool): rotate/flip as the EXIF orientation says (JPEG, PNG)

    Example:
        >>> img = decode_image("cat.jpg", mode=ImageReadMode.RGB)   # doctest: +SKIP
        >>> img.shape, img.dtype                                    # doctest: +SKIP
        (torch.Size([3, 480, 640]), torch.uint8)
    """
    if not isinstance(input, Tensor):
        input = read_file(str(input))
    mode = _as_mode(mode)
    if input.device.type != "cpu":
        raise RuntimeError("Expected a CPU tensor")
    if input.dtype != uint8:
        raise RuntimeError("Expected a torch.uint8 tensor")
    if input.ndim != 1 or input.numel() == 0:
        raise RuntimeError("Expected a non empty 1-dimensional tensor")
    data = _numpy(input).tobytes()
    if data.startswith(b"\xff\xd8\xff"):
        decode = _decode_jpeg
    elif data.startswith(b"\x89PNG"):
        decode = _decode_png
    elif data.startswith((b"GIF89a", b"GIF87a")):
        raise not_implemented("torchvision.io.decode_image of GIF images (decode_gif)",
                              _PIL_INSTEAD)
    elif data[:4] == b"RIFF" and data[8:15] == b"WEBPVP8":
        _check_contiguous(input)
        return _decode_webp(data, mode)
    else:
        raise RuntimeError(_UNSUPPORTED)
    _check_contiguous(input)
    return decode(data, mode, apply_exif_orientation)


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """[OBSOLETE in torchvision] ``decode_image(read_file(path), mode, ...)``."""
    return decode_image(read_file(path), mode, apply_exif_orientation=apply_exif_orientation)
