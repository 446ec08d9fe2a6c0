"""Writes jtorch/vision/models/_weights.json: every classification, segmentation, video,
detection and optical flow weights enum of the installed torchvision (0.28, pinned in the test
extra), its members' urls, preprocessing keywords (null where the transforms are the preset
class itself, as for detection and optical flow) and the preset's name where it is not
``ImageClassification``, and meta (``categories`` shortened to ``"ImageNet-1K"``, ``"VOC"``,
``"Kinetics-400"``, ``"COCO"`` or ``"COCO-person"``, keypoint names to
``"COCO-person-keypoints"``; the ``_docs`` prose left out of the classification enums, kept in
the others), and its aliases (``DEFAULT``).
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
    """{enum name: {member: entry or alias}} of torchvision's classification, segmentation,
    video, detection and optical flow models."""
    from torchvision.models._meta import (
        _COCO_CATEGORIES,
        _COCO_PERSON_CATEGORIES,
        _COCO_PERSON_KEYPOINT_NAMES,
        _IMAGENET_CATEGORIES,
        _KINETICS400_CATEGORIES,
        _VOC_CATEGORIES,
    )
    categories = {"ImageNet-1K": list(_IMAGENET_CATEGORIES), "VOC": list(_VOC_CATEGORIES),
                  "Kinetics-400": list(_KINETICS400_CATEGORIES),
                  "COCO": list(_COCO_CATEGORIES), "COCO-person": list(_COCO_PERSON_CATEGORIES)}
    out = {}
    names = [(name, True) for name in tv.models.list_models(module=tv.models)] + \
        [(name, False) for name in tv.models.list_models(module=tv.models.segmentation)] + \
        [(name, False) for name in tv.models.list_models(module=tv.models.video)] + \
        [(name, False) for name in tv.models.list_models(module=tv.models.detection)] + \
        [(name, False) for name in tv.models.list_models(module=tv.models.optical_flow)]
    for name, classification in names:
        weights = tv.models.get_model_weights(name)
        entry = {}
        for member in weights:
            meta = {k: _plain(v) for k, v in member.value.meta.items()
                    if k != "_docs" or not classification}
            for short, names_list in categories.items():
                if meta.get("categories") == names_list:
                    meta["categories"] = short
            if meta.get("keypoint_names") == list(_COCO_PERSON_KEYPOINT_NAMES):
                meta["keypoint_names"] = "COCO-person-keypoints"
            transforms = member.value.transforms  # a partial, or the preset class itself
            preset = getattr(transforms, "func", transforms).__name__
            entry[member.name] = {
                "url": member.value.url,
                **({} if preset == "ImageClassification" else {"preset": preset}),
                "transforms": ({k: _plain(v) for k, v in transforms.keywords.items()}
                               if hasattr(transforms, "keywords") else None),
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
