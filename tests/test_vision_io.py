"""``torchvision.io`` (jtorch.vision.io) against torchvision 0.28's own image codecs.

torchvision's image extension (``image.so``: its libpng, libjpeg-turbo and libwebp decoders
and encoders) is built against the CUDA torch: besides libtorch it links ``libc10_cuda.so``
and ``libtorch_cuda.so``, which the CPU torch 2.13 of the tests does not have, so
``vision_helpers.torchvision()`` imports torchvision without it and ``torchvision.io`` raises
"Couldn't load the image extension". The ``tvio`` fixture loads it anyway
(``vision_helpers.load_torchvision_extension``: stub libraries compiled with the system C
compiler stand in for those two; only the nvjpeg paths, which no test takes, would call them),
and its CPU codecs then run as in torchvision. Without a C compiler the parity tests skip;
the tests that need no torchvision still run.
"""

from __future__ import annotations

import importlib
import io
import pathlib
import struct
import warnings
import zlib

import numpy as np
import pytest
import torch
from vision_helpers import load_torchvision_extension, torchvision

import jtorch
import jtorch.vision.io as jio
from jtorch.utils.data import _worker as worker

Image = pytest.importorskip("PIL.Image")
PngImagePlugin = pytest.importorskip("PIL.PngImagePlugin")

@pytest.fixture(scope="module")
def tvio(tmp_path_factory):
    """torchvision.io with torchvision's C++ image codecs loaded."""
    tv = torchvision()
    image = importlib.import_module("torchvision.io.image")
    if not image._has_image_ops():
        load_torchvision_extension("image.so", tmp_path_factory.mktemp("tv_cuda_stubs"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(image, "_has_image_ops", lambda: True)
        yield tv.io


# ------------------------------------------------------------------------------ helpers
def t_bytes(b):
    return torch.frombuffer(bytearray(b), dtype=torch.uint8)


def j_bytes(b):
    return jtorch.frombuffer(bytearray(b), dtype=jtorch.uint8)


def t_image(chw):
    return torch.from_numpy(np.ascontiguousarray(chw))


def j_image(chw):
    return jtorch.tensor(np.ascontiguousarray(chw))


def assert_same(jt, ref):
    assert str(jt.dtype) == str(ref.dtype)
    assert tuple(jt.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(jt.numpy(), ref.numpy())


def encode(img, fmt, **options):
    buf = io.BytesIO()
    img.save(buf, fmt, **options)
    return buf.getvalue()


def palette_image(rng, colors, size=(5, 7)):
    im = Image.frombytes("P", size[::-1], rng.integers(0, colors, size, np.uint8).tobytes())
    im.putpalette(rng.integers(0, 256, 3 * colors, np.uint8).tolist())
    return im


def png16(samples, color_type):
    """A 16-bit PNG written by hand (Pillow writes only 16-bit gray), its rows cycling through
    the five filter types."""
    h, w, c = samples.shape
    raw = samples.astype(">u2").reshape(h, -1).view(np.uint8).astype(np.int64)
    bpp, prev, rows = 2 * c, np.zeros(raw.shape[1], np.int64), b""
    for i, row in enumerate(raw):
        left = np.concatenate([np.zeros(bpp, np.int64), row[:-bpp]])
        up_left = np.concatenate([np.zeros(bpp, np.int64), prev[:-bpp]])
        pa, pb = np.abs(prev - up_left), np.abs(left - up_left)
        pc = np.abs(left + prev - 2 * up_left)
        paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, up_left))
        f = i % 5
        pred = [0, left, prev, (left + prev) // 2, paeth][f]
        rows += bytes([f]) + ((row - pred) % 256).astype(np.uint8).tobytes()
        prev = row

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, color_type,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _pngs():
    rng = np.random.default_rng(0)
    u8 = lambda *shape: rng.integers(0, 256, shape, np.uint8)  # noqa: E731
    gamma = PngImagePlugin.PngInfo()
    gamma.add(b"gAMA", struct.pack(">I", 45455))
    srgb = PngImagePlugin.PngInfo()
    srgb.add(b"sRGB", b"\x00")
    pal = palette_image(rng, 200)
    return {
        "RGB": encode(Image.fromarray(u8(5, 7, 3)), "PNG"),
        "RGBA": encode(Image.fromarray(u8(5, 7, 4)), "PNG"),
        "L": encode(Image.fromarray(u8(5, 7)), "PNG"),
        "LA": encode(Image.fromarray(u8(5, 7, 2)), "PNG"),
        "L-1bit": encode(Image.fromarray(u8(5, 7)).convert("1"), "PNG"),
        "L-2bit": encode(Image.fromarray(rng.integers(0, 4, (5, 7), np.uint8) * 85), "PNG",
                         bits=2),
        "L-tRNS": encode(Image.fromarray(u8(5, 7)), "PNG", transparency=7),
        "RGB-tRNS": encode(Image.fromarray(u8(5, 7, 3)), "PNG", transparency=(1, 2, 3)),
        "P-tRNS": encode(pal, "PNG", transparency=bytes(u8(150).tolist())),
        "P-tRNS-index": encode(pal, "PNG", transparency=3),
        "P": encode(pal, "PNG"),
        "P-4bit": encode(palette_image(rng, 16), "PNG"),
        "P-2bit-tRNS": encode(palette_image(rng, 4), "PNG", transparency=b"\x00\x80\xff\x10"),
        "RGB-gAMA": encode(Image.fromarray(u8(5, 7, 3)), "PNG", pnginfo=gamma),
        "RGBA-sRGB": encode(Image.fromarray(u8(5, 7, 4)), "PNG", pnginfo=srgb),
        "P-gAMA": encode(pal, "PNG", pnginfo=gamma, transparency=5),
        "I16": encode(Image.fromarray(rng.integers(0, 65536, (5, 7), np.uint16)), "PNG"),
        "RGB16": png16(rng.integers(0, 65536, (6, 5, 3), np.uint16), 2),
        "RGBA16": png16(rng.integers(0, 65536, (6, 5, 4), np.uint16), 6),
        "LA16": png16(rng.integers(0, 65536, (6, 5, 2), np.uint16), 4),
    }


PNGS = _pngs()
MODES = list(jio.ImageReadMode)
# torchvision 0.28's libpng setup reads these wrongly (packed rows; a 3-channel row in a
# 4-channel buffer, the rest uninitialized memory): jtorch gives the values they stand for
TORCHVISION_BUGS = {("P-4bit", "UNCHANGED"), ("P-2bit-tRNS", "UNCHANGED"),
                    ("P", "GRAY_ALPHA"), ("P", "RGB_ALPHA"), ("P-4bit", "GRAY_ALPHA"),
                    ("P-4bit", "RGB_ALPHA")}


def _jpeg_image():
    y, x = np.mgrid[0:37, 0:45]
    rgb = np.stack([(x * 5) % 256, (y * 7) % 256, ((x + y) * 3) % 256], -1)
    rgb = rgb + np.random.default_rng(1).integers(-20, 20, rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


JPEG_RGB = _jpeg_image()
JPEGS = {
    "RGB-420": encode(Image.fromarray(JPEG_RGB), "JPEG", quality=90),
    "RGB-444": encode(Image.fromarray(JPEG_RGB), "JPEG", quality=75, subsampling=0),
    "RGB-progressive": encode(Image.fromarray(JPEG_RGB), "JPEG", progressive=True),
    "L": encode(Image.fromarray(JPEG_RGB[..., 1]), "JPEG", quality=90),
    "CMYK": encode(Image.fromarray(JPEG_RGB).convert("CMYK"), "JPEG", quality=90),
}


# ------------------------------------------------------------------------------ namespace
def test_names_match_torchvision(tvio):
    assert jio.__all__ == tvio.__all__
    assert [(m.name, m.value) for m in jio.ImageReadMode] == \
        [(m.name, m.value) for m in tvio.ImageReadMode]
    assert list(jio.ImageReadMode.__members__) == list(tvio.ImageReadMode.__members__)
    assert jio.ImageReadMode.RGBA is jio.ImageReadMode.RGB_ALPHA
    for name in jio.__all__:
        assert callable(getattr(jio, name))
    data = j_bytes(b"GIF89a" + bytes(30))
    for fn in (jio.decode_gif, jio.decode_avif, jio.decode_heic):
        with pytest.raises(NotImplementedError, match=f"torchvision.io.{fn.__name__}"):
            fn(data)
    with pytest.raises(NotImplementedError, match="decode_gif"):
        jio.decode_image(data)
    # the video API is gone from torchvision 0.28's io: absent here too, and it says so
    for name in ("read_video", "read_video_timestamps", "write_video", "VideoReader"):
        assert not hasattr(tvio, name) and not hasattr(jio, name)
        with pytest.raises(NotImplementedError, match=f"torchvision.io.{name}"):
            getattr(jio, name)
    assert jtorch.vision.io is jio


# ------------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("kind", list(PNGS))
def test_decode_png_against_torchvision(tvio, kind):
    data = PNGS[kind]
    for mode in MODES:
        ours = jio.decode_png(j_bytes(data), mode)
        assert_same(jio.decode_image(j_bytes(data), mode.name.lower()), ours)
        if (kind, mode.name) in TORCHVISION_BUGS:
            continue
        assert_same(ours, tvio.decode_png(t_bytes(data), tvio.ImageReadMode[mode.name]))
        assert_same(jio.decode_image(j_bytes(data), mode),
                    tvio.decode_image(t_bytes(data), tvio.ImageReadMode[mode.name]))


@pytest.mark.parametrize("kind", ["P", "P-4bit", "P-2bit-tRNS"])
def test_decode_png_where_torchvision_reads_garbage(tvio, kind):
    """Palette PNGs: indices, and an opaque alpha without a tRNS chunk."""
    data = PNGS[kind]
    pil = Image.open(io.BytesIO(data))
    np.testing.assert_array_equal(jio.decode_png(j_bytes(data)).numpy()[0], np.asarray(pil))
    if "tRNS" in kind:
        return
    rgba = np.asarray(pil.convert("RGBA")).transpose(2, 0, 1)
    np.testing.assert_array_equal(jio.decode_png(j_bytes(data), "RGBA").numpy(), rgba)
    gray = tvio.decode_png(t_bytes(data), tvio.ImageReadMode.GRAY).numpy()
    np.testing.assert_array_equal(jio.decode_png(j_bytes(data), "GRAY_ALPHA").numpy(),
                                  np.concatenate([gray, np.full_like(gray, 255)]))


@pytest.mark.parametrize("kind", list(JPEGS))
def test_decode_jpeg_against_torchvision(tvio, kind):
    """Pillow's libjpeg-turbo and torchvision's libjpeg give the same pixels for these files
    (measured: no difference at all; other libjpeg builds may differ by a few units)."""
    data = JPEGS[kind]
    for mode in ("UNCHANGED", "GRAY", "RGB"):
        ref = tvio.decode_jpeg(t_bytes(data), tvio.ImageReadMode[mode])
        assert_same(jio.decode_jpeg(j_bytes(data), jio.ImageReadMode[mode]), ref)
        assert_same(jio.decode_image(j_bytes(data), mode), ref)
    assert_same(jio.decode_jpeg([j_bytes(data), j_bytes(data)], device="cpu")[1],
                tvio.decode_jpeg([t_bytes(data), t_bytes(data)], device="cpu")[1])
    assert_same(jio.decode_jpeg(j_bytes(data), device=jtorch.device("cpu")),
                tvio.decode_jpeg(t_bytes(data)))


@pytest.mark.parametrize("alpha", [False, True])
@pytest.mark.parametrize("lossless", [False, True])
def test_decode_webp_against_torchvision(tvio, lossless, alpha):
    rgb = JPEG_RGB[:23, :31]
    img = np.concatenate([rgb, rgb[..., :1] // 2], -1) if alpha else rgb
    data = encode(Image.fromarray(img), "WEBP", lossless=lossless, quality=80)
    for mode in MODES:
        with warnings.catch_warnings():   # torchvision warns once per process for gray modes
            warnings.simplefilter("ignore", UserWarning)
            ref = tvio.decode_webp(t_bytes(data), tvio.ImageReadMode[mode.name])
        gray = mode.name.startswith("GRAY")
        with pytest.warns(UserWarning, match="Webp does not support grayscale") if gray else \
                warnings.catch_warnings():
            assert_same(jio.decode_webp(j_bytes(data), mode), ref)
        with pytest.warns(UserWarning) if gray else warnings.catch_warnings():
            assert_same(jio.decode_image(j_bytes(data), mode), ref)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_exif_orientation_against_torchvision(tvio, fmt):
    img = Image.fromarray(JPEG_RGB[:4, :6])
    for orientation in range(10):
        exif = Image.Exif()
        if orientation:
            exif[0x0112] = orientation
        data = encode(img, fmt, exif=exif, quality=95)
        for apply in (False, True):
            for mode in ("UNCHANGED", "GRAY"):
                ref = tvio.decode_image(t_bytes(data), mode, apply_exif_orientation=apply)
                assert_same(jio.decode_image(j_bytes(data), mode, apply_exif_orientation=apply),
                            ref)
        decode = jio.decode_jpeg if fmt == "JPEG" else jio.decode_png
        assert_same(decode(j_bytes(data), apply_exif_orientation=True),
                    tvio.decode_image(t_bytes(data), apply_exif_orientation=True))


def test_files_and_paths_against_torchvision(tvio, tmp_path):
    path = tmp_path / "img.png"
    path.write_bytes(PNGS["RGBA"])
    assert_same(jio.read_file(path), tvio.read_file(path))
    assert_same(jio.read_file(str(path)), t_bytes(PNGS["RGBA"]))
    for mode in ("UNCHANGED", jio.ImageReadMode.RGB, "gray"):
        tv_mode = tvio.ImageReadMode[mode.name] if isinstance(mode, jio.ImageReadMode) else mode
        ref = tvio.read_image(str(path), tv_mode)
        assert_same(jio.read_image(str(path), mode), ref)
        assert_same(jio.read_image(path, mode), ref)
        assert_same(jio.decode_image(path, mode), ref)
        assert_same(jio.decode_image(str(path), mode), ref)
    out = tmp_path / "copy.bin"
    jio.write_file(out, jio.read_file(path))
    assert out.read_bytes() == PNGS["RGBA"]
    jio.write_file(str(out), jio.read_file(path)[::2])     # any layout, as torchvision
    assert out.read_bytes() == PNGS["RGBA"][::2]


def test_decoding_in_the_data_pipeline_makes_host_tensors(tvio, tmp_path):
    path = tmp_path / "img.jpg"
    path.write_bytes(JPEGS["RGB-420"])
    with worker.host_fetch():
        img = jio.read_image(path, jio.ImageReadMode.RGB)
    assert worker.is_host(img)
    assert_same(img, tvio.read_image(str(path), tvio.ImageReadMode.RGB))


# ------------------------------------------------------------------------------ encoding
@pytest.mark.parametrize("channels", [1, 3])
def test_encode_png_against_torchvision(tvio, tmp_path, channels):
    img = JPEG_RGB[:9, :11, :channels].transpose(2, 0, 1)
    for level in (0, 6, 9):
        ours = jio.encode_png(j_image(img), compression_level=level)
        assert ours.dtype == jtorch.uint8 and ours.ndim == 1
        theirs = tvio.encode_png(t_image(img), compression_level=level)
        # the bytes are Pillow's, not libpng's: compare pixels, decoded by both libraries
        assert_same(jio.decode_png(j_bytes(ours.numpy().tobytes())), t_image(img))
        assert_same(jio.decode_png(j_bytes(theirs.numpy().tobytes())), t_image(img))
        assert_same(tvio.decode_png(t_bytes(ours.numpy().tobytes())), t_image(img))
    strided = jtorch.tensor(np.ascontiguousarray(img.transpose(1, 2, 0))).permute(2, 0, 1)
    assert strided.is_contiguous() == (channels == 1)
    assert_same(jio.encode_png(strided), jio.encode_png(j_image(img)))
    jio.write_png(j_image(img), tmp_path / "a.png")
    tvio.write_png(t_image(img), str(tmp_path / "b.png"))
    assert_same(jio.read_image(tmp_path / "a.png"), tvio.read_image(str(tmp_path / "b.png")))


@pytest.mark.parametrize("channels", [1, 3])
def test_encode_jpeg_against_torchvision(tvio, tmp_path, channels):
    """Decoded pixels of jtorch's and torchvision's files agree exactly (measured: Pillow's
    libjpeg-turbo with its defaults even writes torchvision's bytes)."""
    img = JPEG_RGB[..., :channels].transpose(2, 0, 1)
    for quality in (1, 50, 75, 95, 100):
        ours = jio.encode_jpeg(j_image(img), quality=quality)
        theirs = tvio.encode_jpeg(t_image(img), quality=quality)
        assert ours.dtype == jtorch.uint8 and ours.ndim == 1
        assert_same(jio.decode_jpeg(j_bytes(ours.numpy().tobytes())),
                    tvio.decode_jpeg(t_bytes(theirs.numpy().tobytes())))
    ours = jio.encode_jpeg([j_image(img), j_image(img[:1])])
    theirs = tvio.encode_jpeg([t_image(img), t_image(img[:1])])
    for a, b in zip(ours, theirs, strict=True):
        assert_same(tvio.decode_jpeg(t_bytes(a.numpy().tobytes())),
                    tvio.decode_jpeg(t_bytes(b.numpy().tobytes())))
    jio.write_jpeg(j_image(img), tmp_path / "a.jpg", quality=90)
    tvio.write_jpeg(t_image(img), str(tmp_path / "b.jpg"), quality=90)
    assert_same(jio.read_image(tmp_path / "a.jpg"), tvio.read_image(str(tmp_path / "b.jpg")))


# ------------------------------------------------------------------------------ errors
def _error_cases(tmp):
    png, jpg, img = PNGS["RGB"], JPEGS["RGB-420"], JPEG_RGB[:4, :5].transpose(2, 0, 1)
    frames = [Image.fromarray(JPEG_RGB[:8, :8]), Image.fromarray(255 - JPEG_RGB[:8, :8])]
    animated = encode(frames[0], "WEBP", save_all=True, append_images=frames[1:])
    B, I = "bytes", "image"   # noqa: E741 (argument kinds, made for each library below)
    return {
        "decode_image float": ("decode_image", (B, png, "float32")),
        "decode_image int8": ("decode_image", (B, png, "int8")),
        "decode_image 2-D": ("decode_image", (B, png, "2d")),
        "decode_image empty": ("decode_image", (B, b"", None)),
        "decode_image garbage": ("decode_image", (B, b"\x01\x02\x03\x04\x05", None)),
        "decode_image short": ("decode_image", (B, b"\x01", None)),
        "decode_image no file": ("decode_image", (str(tmp / "missing.png"),)),
        "decode_image mode name": ("decode_image", (B, png, None), "foo"),
        "decode_image mode int": ("decode_image", (B, png, None), 3),
        "read_image no file": ("read_image", (str(tmp / "missing.png"),)),
        "read_file empty": ("read_file", (str(tmp / "empty"),)),
        "decode_png jpeg": ("decode_png", (B, jpg, None)),
        "decode_png float": ("decode_png", (B, png, "float32")),
        "decode_png uint16": ("decode_png", (B, png[:32], "uint16")),
        "decode_png 2-D": ("decode_png", (B, png, "2d")),
        "decode_png strided": ("decode_png", (B, png, "strided")),
        "decode_png truncated": ("decode_png", (B, png[:60], None)),
        "decode_jpeg png": ("decode_jpeg", (B, png, None)),
        "decode_jpeg truncated": ("decode_jpeg", (B, jpg[:400], None)),
        "decode_jpeg gray alpha": ("decode_jpeg", (B, jpg, None), "GRAY_ALPHA"),
        "decode_jpeg rgba": ("decode_jpeg", (B, jpg, None), "RGBA"),
        "decode_jpeg empty list": ("decode_jpeg", ([],)),
        "decode_jpeg list of bytes": ("decode_jpeg", ([b"x"],)),
        "decode_webp png": ("decode_webp", (B, png, None)),
        "decode_webp animated": ("decode_webp", (B, animated, None)),
        "encode_png float": ("encode_png", (I, img, "float32")),
        "encode_png 2-D": ("encode_png", (I, img[0], None)),
        "encode_png 2 channels": ("encode_png", (I, img[:2], None)),
        "encode_png 4 channels": ("encode_png", (I, np.concatenate([img, img[:1]]), None)),
        "encode_png level 10": ("encode_png", (I, img, None), 10),
        "encode_png level -1": ("encode_png", (I, img, None), -1),
        "encode_png empty": ("encode_png", (I, img[:, :0], None)),
        "encode_jpeg float": ("encode_jpeg", (I, img, "float32")),
        "encode_jpeg 4-D": ("encode_jpeg", (I, img[None], None)),
        "encode_jpeg 4 channels": ("encode_jpeg", (I, np.concatenate([img, img[:1]]), None)),
        "encode_jpeg quality 0": ("encode_jpeg", (I, img, None), 0),
        "encode_jpeg quality 101": ("encode_jpeg", (I, img, None), 101),
        "encode_jpeg empty list": ("encode_jpeg", ([],)),
        "encode_jpeg empty image": ("encode_jpeg", (I, img[:, :, :0], None)),
        "write_file float": ("write_file", (str(tmp / "x"),), (B, png, "float32")),
        "write_file 2-D": ("write_file", (str(tmp / "x"),), (B, png, "2d")),
        "write_file no folder": ("write_file", (str(tmp / "no" / "x"),), (B, png, None)),
        "write_jpeg list": ("write_jpeg", ([(I, img, None)],), str(tmp / "x.jpg")),
    }


def _argument(lib, arg):
    """An argument of an error case for torchvision (``lib="tv"``) or jtorch."""
    if isinstance(arg, list):
        return [_argument(lib, a) for a in arg]
    if not isinstance(arg, tuple):
        return arg
    if len(arg) == 1:
        return _argument(lib, arg[0])
    kind, value, how = arg
    array = np.frombuffer(value, np.uint8) if kind == "bytes" else np.ascontiguousarray(value)
    if how == "2d":
        array = np.stack([array, array])
    elif how in ("float32", "int8", "uint16"):
        array = array.view(np.uint16) if how == "uint16" else array.astype(how)
    mod = torch if lib == "tv" else jtorch
    out = mod.tensor(array.copy())
    return out[::2] if how == "strided" else out


@pytest.mark.parametrize("case", list(_error_cases(pathlib.Path("unused"))))
def test_errors_match_torchvision(tvio, tmp_path, case):
    """Same exception type; torchvision's C++ messages start with the function, file and line
    of the check, then jtorch's message."""
    (tmp_path / "empty").write_bytes(b"")
    name, *args = _error_cases(tmp_path)[case]
    errors = []
    for lib, module in (("tv", tvio), ("jt", jio)):
        with pytest.raises((RuntimeError, ValueError, KeyError, AttributeError,
                            AssertionError)) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            getattr(module, name)(*[_argument(lib, a) for a in args])
        errors.append(info.value)
    theirs, ours = errors
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(theirs).endswith(str(ours)), (str(ours), str(theirs))


def test_jtorch_only_errors():
    data = j_bytes(JPEGS["RGB-420"])
    with pytest.raises(NotImplementedError, match="decode_jpeg on a cuda device"):
        jio.decode_jpeg(data, device="cuda")
    with pytest.raises(NotImplementedError, match="decode_jpeg on a cuda device"):
        jio.decode_jpeg([data], device="cuda:0")
    with pytest.raises(RuntimeError, match="Input tensor must be contiguous"):
        jio.decode_jpeg(j_bytes(JPEGS["RGB-420"] * 2)[::2])
