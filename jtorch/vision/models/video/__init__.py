"""``torchvision.models.video``: R3D-18, MC3-18, R(2+1)D-18 (``resnet``), S3D (``s3d``), the
Video Swin Transformers (``swin_transformer``) and MViT V1-B/V2-S (``mvit``) with torchvision's
builders, module structure, state_dict keys and Kinetics-400 weights enums. As in torchvision,
``video.s3d`` is the builder (``from .s3d import *`` hides the submodule)."""

from . import (
    mvit as mvit,
    resnet as resnet,
    s3d as _s3d_module,
    swin_transformer as swin_transformer,
)
from .mvit import (
    MViT as MViT,
    MViT_V1_B_Weights as MViT_V1_B_Weights,
    MViT_V2_S_Weights as MViT_V2_S_Weights,
    mvit_v1_b as mvit_v1_b,
    mvit_v2_s as mvit_v2_s,
)
from .resnet import (
    MC3_18_Weights as MC3_18_Weights,
    R2Plus1D_18_Weights as R2Plus1D_18_Weights,
    R3D_18_Weights as R3D_18_Weights,
    VideoResNet as VideoResNet,
    mc3_18 as mc3_18,
    r2plus1d_18 as r2plus1d_18,
    r3d_18 as r3d_18,
)
from .s3d import S3D as S3D, S3D_Weights as S3D_Weights, s3d as s3d
from .swin_transformer import (
    Swin3D_B_Weights as Swin3D_B_Weights,
    Swin3D_S_Weights as Swin3D_S_Weights,
    Swin3D_T_Weights as Swin3D_T_Weights,
    SwinTransformer3d as SwinTransformer3d,
    swin3d_b as swin3d_b,
    swin3d_s as swin3d_s,
    swin3d_t as swin3d_t,
)

__all__ = sorted(mvit.__all__ + resnet.__all__ + _s3d_module.__all__ + swin_transformer.__all__)
