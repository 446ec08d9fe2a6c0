"""Writes jtorch/vision/models/_weights.json: every classification and segmentation weights
enum of the installed torchvision (0.28, pinned in the test extra), its members' urls,
preprocessing keywords (and the preset's name where it is not ``ImageClassification``) and meta
(``categories`` shortened to ``"ImageNet-1K"`` or ``"VOC"``; the ``_docs`` prose left out of
the classification enums, kept in the segmentation ones), and its aliases (``DEFAULT``).
jtorch's builders read their enums from that file.

    python scripts/gen_vision_weights.py
"""

from __future__ import annotations

import enum
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "jtorch", "vision", "models", "_weights.json")


def _plain(v):
    if isinstance(v, enum.Enum):
        return v.value
    return list(v) if isinstance(v, tuple) else v


def weights_entries(tv):
    """{enum name: {member: entry or alias}} of torchvision's classification and segmentation
    models."""
    from torchvision.models._meta import _IMAGENET_CATEGORIES, _VOC_CATEGORIES
    categories = {"ImageNet-1K": list(_IMAGENET_CATEGORIES), "VOC": list(_VOC_CATEGORIES)}
    out = {}
    names = [(name, True) for name in tv.models.list_models(module=tv.models)] + \
        [(name, False) for name in tv.models.list_models(module=tv.models.segmentation)]
    for name, classification in names:
        weights = tv.models.get_model_weights(name)
        entry = {}
        for member in weights:
            meta = {k: _plain(v) for k, v in member.value.meta.items()
                    if k != "_docs" or not classification}
            for short, names_list in categories.items():
                if meta.get("categories") == names_list:
                    meta["categories"] = short
            preset = member.value.transforms.func.__name__
            entry[member.name] = {
                "url": member.value.url,
                **({} if preset == "ImageClassification" else {"preset": preset}),
                "transforms": {k: _plain(v)
                               for k, v in member.value.transforms.keywords.items()},
                "meta": meta}
        for alias, member in weights.__members__.items():
            entry.setdefault(alias, member.name)
        out[weights.__name__] = entry
    return dict(sorted(out.items()))


def main():
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from vision_helpers import torchvision  # torchvision's pure-Python parts on the CPU torch
    entries = weights_entries(torchvision())
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    print(f"{len(entries)} weights enums -> {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
