"""The class names of the published weights, in the order of the models' outputs: the
ImageNet-1K categories (torchvision's ``_IMAGENET_CATEGORIES``, read from
``_imagenet_categories.txt``, one name a line), the Pascal VOC ones of the segmentation
models (``_VOC_CATEGORIES``), the Kinetics-400 ones of the video models
(``_KINETICS400_CATEGORIES``, from ``_kinetics400_categories.txt``) and the COCO ones of the
detection models (``_COCO_CATEGORIES``, ``_COCO_PERSON_CATEGORIES`` and the keypoint names
``_COCO_PERSON_KEYPOINT_NAMES``)."""

from pathlib import Path

_IMAGENET_CATEGORIES = (Path(__file__).with_name("_imagenet_categories.txt")
                        .read_text(encoding="utf-8").splitlines())

_KINETICS400_CATEGORIES = (Path(__file__).with_name("_kinetics400_categories.txt")
                           .read_text(encoding="utf-8").splitlines())

_VOC_CATEGORIES = ["__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus",
                   "car", "cat", "chair", "cow", "diningtable", "dog", "horse", "motorbike",
                   "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]

_COCO_CATEGORIES = ["__background__", "person", "bicycle", "car", "motorcycle", "airplane", "bus",
                    "train", "truck", "boat", "traffic light", "fire hydrant", "N/A", "stop sign",
                    "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
                    "elephant", "bear", "zebra", "giraffe", "N/A", "backpack", "umbrella", "N/A",
                    "N/A", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard",
                    "sports ball", "kite", "baseball bat", "baseball glove", "skateboard",
                    "surfboard", "tennis racket", "bottle", "N/A", "wine glass", "cup", "fork",
                    "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange", "broccoli",
                    "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
                    "potted plant", "bed", "N/A", "dining table", "N/A", "N/A", "toilet", "N/A",
                    "tv", "laptop", "mouse", "remote", "keyboard", "cell phone", "microwave",
                    "oven", "toaster", "sink", "refrigerator", "N/A", "book", "clock", "vase",
                    "scissors", "teddy bear", "hair drier", "toothbrush"]

_COCO_PERSON_CATEGORIES = ["no person", "person"]

_COCO_PERSON_KEYPOINT_NAMES = ["nose", "left_eye", "right_eye", "left_ear", "right_ear",
                               "left_shoulder", "right_shoulder", "left_elbow", "right_elbow",
                               "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee",
                               "right_knee", "left_ankle", "right_ankle"]
