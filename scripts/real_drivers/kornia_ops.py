"""Driver of kornia (docs/real-programs.md): the installed package, unchanged, run over small
random images (batch 2, RGB 32x32): its filters, colour conversions, geometric transforms
(warps, homographies, remapping, pyramids, depth and camera helpers), enhancements,
morphology, losses, local-feature responses and descriptors, matching, RANSAC, Lie groups,
image registration and ``kornia.augmentation`` pipelines and transforms, printing each
result's checksum (sums and largest magnitude) at full precision and, for the differentiable
groups, the gradient of a loss through them.

    python scripts/shared_rng_run.py drive_kornia.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_kornia.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. The augmentations
draw their parameters from ``torch.distributions`` (Uniform's ``rsample``, Bernoulli's
``sample``), which the wrapper routes to the shared stream. ``KORNIA_FLOAT64=1`` runs
everything in float64 (to tell float32 rounding from a bug).
"""

import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import kornia  # noqa: E402
import kornia.augmentation as K  # noqa: E402

B, C, S = 2, 3, 32

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def images(batch=B, channels=C, size=S):
    return torch.rand(batch, channels, size, size)


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction, a gradient's or a whitened image's, give no
    cancellation noise) and the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grad_line(name, x, loss):
    loss.backward()
    g = x.grad.double()
    return f"{name} loss {loss.item()!r} grad norm {g.norm().item()!r} grad {checksum(g)}"


# each variant returns [(label, tensor or text)]; a tensor is printed as its checksum


@variant("filters")
def _():
    F = kornia.filters
    x = images()
    out = [("gaussian_blur2d", F.gaussian_blur2d(x, (5, 5), (1.5, 1.5))),
           ("gaussian_blur2d_replicate", F.gaussian_blur2d(x, (3, 7), (0.8, 2.0),
                                                           border_type="replicate")),
           ("box_blur", F.box_blur(x, (3, 3))),
           ("box_blur_circular", F.box_blur(x, (5, 3), border_type="circular")),
           ("median_blur", F.median_blur(x, (3, 3))),
           ("sobel", F.sobel(x)),
           ("spatial_gradient", F.spatial_gradient(x, mode="diff", order=1)),
           ("spatial_gradient2", F.spatial_gradient(x, order=2)),
           ("laplacian", F.laplacian(x, 5)),
           ("unsharp_mask", F.unsharp_mask(x, (3, 3), (1.5, 1.5))),
           ("bilateral_blur", F.bilateral_blur(x, (5, 5), 0.1, (1.5, 1.5))),
           ("joint_bilateral_blur", F.joint_bilateral_blur(x, x.flip(-1), (3, 3), 0.2,
                                                          (1.0, 1.0))),
           ("motion_blur", F.motion_blur(x, 5, 35.0, 0.5)),
           ("filter2d", F.filter2d(x, torch.arange(9.0).view(1, 3, 3) / 36)),
           ("filter2d_separable", F.filter2d_separable(x, torch.tensor([[1.0, 2.0, 1.0]]) / 4,
                                                       torch.tensor([[1.0, 0.0, -1.0]]))),
           ("blur_pool2d", F.blur_pool2d(x, 3)),
           ("max_blur_pool2d", F.max_blur_pool2d(x, 3))]
    magnitude, edges = F.canny(x)
    out += [("canny_magnitude", magnitude), ("canny_edges", edges)]
    return out


@variant("filters_grad")
def _():
    F = kornia.filters
    x = images().requires_grad_()
    y = F.gaussian_blur2d(x, (5, 5), (1.5, 1.5))
    y = F.sobel(y) + F.bilateral_blur(x, (3, 3), 0.1, (1.0, 1.0)) + F.unsharp_mask(x, (3, 3),
                                                                                (1.0, 1.0))
    return [("filters", grad_line("filters", x, y.pow(2).mean()))]


@variant("color")
def _():
    c = kornia.color
    x = images()
    out = []
    for name, fwd, back in (("hsv", c.rgb_to_hsv, c.hsv_to_rgb), ("hls", c.rgb_to_hls,
                                                                   c.hls_to_rgb),
                            ("lab", c.rgb_to_lab, c.lab_to_rgb), ("yuv", c.rgb_to_yuv,
                                                                   c.yuv_to_rgb),
                            ("ycbcr", c.rgb_to_ycbcr, c.ycbcr_to_rgb),
                            ("xyz", c.rgb_to_xyz, c.xyz_to_rgb), ("luv", c.rgb_to_luv,
                                                                   c.luv_to_rgb),
                            ("linear", c.rgb_to_linear_rgb, c.linear_rgb_to_rgb)):
        y = fwd(x)
        out += [(f"rgb_to_{name}", y), (f"{name}_roundtrip", back(y))]
    out += [("grayscale", c.rgb_to_grayscale(x)), ("bgr", c.rgb_to_bgr(x)),
            ("rgba", c.rgb_to_rgba(x, 1.0)), ("gray_to_rgb", c.grayscale_to_rgb(x[:, :1])),
            ("sepia", c.sepia(x)), ("yuv420", c.rgb_to_yuv420(x)[1])]
    return out


@variant("color_grad")
def _():
    c = kornia.color
    x = images().requires_grad_()
    loss = (c.rgb_to_hsv(x)[:, 1:].mean() + c.rgb_to_lab(x).abs().mean()
            + c.rgb_to_hls(x)[:, 1:].mean() + c.rgb_to_grayscale(x).var())
    return [("color", grad_line("color", x, loss))]


def homography_batch():
    """A small random perspective (identity plus noise) per image."""
    h = torch.eye(3).repeat(B, 1, 1)
    h[:, :2, :] += 0.05 * torch.randn(B, 2, 3)
    h[:, :2, 2] += 2.0 * torch.randn(B, 2)
    h[:, 2, :2] += 0.001 * torch.randn(B, 2)
    return h


@variant("geometry")
def _():
    T = kornia.geometry.transform
    x = images()
    center = torch.full((B, 2), S / 2)
    angle = torch.tensor([30.0, -45.0])
    scale = torch.tensor([[0.9, 1.1], [1.2, 0.8]])
    affine = T.get_rotation_matrix2d(center, angle, scale)
    h = homography_batch()
    src = torch.tensor([[[0.0, 0.0], [31.0, 0.0], [31.0, 31.0], [0.0, 31.0]]]).repeat(B, 1, 1)
    dst = src + 3.0 * torch.randn(B, 4, 2)
    persp = T.get_perspective_transform(src, dst)
    boxes = torch.tensor([[[2.0, 3.0], [20.0, 3.0], [20.0, 25.0], [2.0, 25.0]],
                          [[5.0, 5.0], [30.0, 5.0], [30.0, 15.0], [5.0, 15.0]]])
    grid = kornia.utils.create_meshgrid(S, S, normalized_coordinates=False)
    flow = 1.5 * torch.randn(1, S, S, 2)
    return [("rotation_matrix", affine),
            ("warp_affine", T.warp_affine(x, affine, (S, S))),
            ("warp_affine_reflect", T.warp_affine(x, affine, (24, 40), mode="bilinear",
                                                  padding_mode="reflection",
                                                  align_corners=False)),
            ("warp_affine_nearest", T.warp_affine(x, affine, (S, S), mode="nearest",
                                                  padding_mode="border")),
            ("warp_perspective", T.warp_perspective(x, h, (S, S))),
            ("warp_perspective_fill", T.warp_perspective(x, h, (S, S), padding_mode="fill",
                                                         fill_value=torch.tensor([0.2, 0.5,
                                                                                  0.9]))),
            ("rotate", T.rotate(x, angle)),
            ("translate", T.translate(x, torch.tensor([[3.0, -2.5], [-1.0, 4.0]]))),
            ("scale", T.scale(x, scale)),
            ("shear", T.shear(x, torch.tensor([[0.1, 0.0], [0.0, -0.2]]))),
            ("hflip", T.hflip(x)), ("vflip", T.vflip(x)), ("rot180", T.rot180(x)),
            ("resize", T.resize(x, (20, 44))),
            ("resize_antialias", T.resize(x, (13, 17), antialias=True)),
            ("resize_bicubic", T.resize(x, (48, 40), interpolation="bicubic")),
            ("rescale", T.rescale(x, 0.5)),
            ("crop_by_boxes", T.crop_and_resize(x, boxes, (16, 12))),
            ("center_crop", T.center_crop(x, (20, 24))),
            ("perspective_transform", persp),
            ("warp_perspective_persp", T.warp_perspective(x, persp, (S, S))),
            ("find_homography_dlt", kornia.geometry.homography.find_homography_dlt(
                src, dst, torch.ones(B, 4))),
            ("remap", T.remap(x, grid[..., 0] + flow[..., 0], grid[..., 1] + flow[..., 1],
                              align_corners=True)),
            ("pyrdown", T.pyrdown(x)), ("pyrup", T.pyrup(x)),
            ("build_pyramid", T.build_pyramid(x, 3)[-1]),
            ("elastic", T.elastic_transform2d(x, torch.rand(B, 2, S, S) * 2 - 1, (7, 7),
                                               (4.0, 4.0), (2.0, 2.0))),
            ("invert_affine", T.invert_affine_transform(affine)),
            ("affine_3x3", kornia.geometry.conversions.convert_affinematrix_to_homography(
                affine).inverse())]


@variant("geometry_camera")
def _():
    g = kornia.geometry
    depth = 1.0 + torch.rand(B, 1, 8, 10)
    k = torch.tensor([[20.0, 0.0, 5.0], [0.0, 22.0, 4.0], [0.0, 0.0, 1.0]]).repeat(B, 1, 1)
    points = g.depth.depth_to_3d_v2(depth[:, 0], k)
    normals = g.depth.depth_to_normals(depth, k)
    projected = g.camera.project_points(points, k[:, None, None])
    unprojected = g.camera.unproject_points(projected, points[..., 2:], k[:, None, None])
    axis_angle = 0.3 * torch.randn(B, 3)
    rot = g.conversions.axis_angle_to_rotation_matrix(axis_angle)
    quat = g.conversions.rotation_matrix_to_quaternion(rot)
    pts = torch.randn(B, 6, 3)
    transformed = g.linalg.transform_points(g.conversions.convert_points_to_homogeneous(
        pts[..., :2]).new_zeros(B, 4, 4) + torch.eye(4), pts)
    fundamental = g.epipolar.fundamental_from_projections(
        torch.cat([torch.eye(3), torch.zeros(3, 1)], 1)[None].repeat(B, 1, 1),
        torch.cat([rot, torch.randn(B, 3, 1)], 2))
    return [("depth_to_3d", points), ("depth_to_normals", normals),
            ("project_points", projected), ("unproject_points", unprojected),
            ("axis_angle_to_rotation", rot), ("quaternion", quat),
            ("rotation_back", g.conversions.quaternion_to_axis_angle(quat)),
            ("transform_points", transformed), ("fundamental", fundamental),
            ("normalize_points", g.epipolar.normalize_points(pts[..., :2])[0])]


@variant("geometry_grad")
def _():
    T = kornia.geometry.transform
    x = images().requires_grad_()
    center = torch.full((B, 2), S / 2)
    angle = torch.tensor([20.0, -10.0], requires_grad=True)
    affine = T.get_rotation_matrix2d(center, angle, torch.ones(B, 2))
    h = homography_batch().requires_grad_()
    y = T.warp_affine(x, affine, (S, S)) + T.warp_perspective(x, h, (S, S))
    y = T.resize(y, (24, 24)) + T.pyrdown(T.pyrup(y))[..., :24, :24]
    loss = y.pow(2).mean()
    line = grad_line("geometry", x, loss)
    return [("geometry", line), ("angle_grad", angle.grad), ("homography_grad", h.grad)]


@variant("homography_grad")
def _():
    src = torch.rand(B, 6, 2) * S
    dst = (src + torch.randn(B, 6, 2)).requires_grad_()
    h = kornia.geometry.homography.find_homography_dlt(src, dst, solver="svd")
    hl = kornia.geometry.homography.find_homography_dlt(src, dst.detach(), solver="lu")
    err = kornia.geometry.homography.oneway_transfer_error(src, dst, h)
    return [("homography_svd", h / h[:, 2:, 2:]), ("homography_lu", hl / hl[:, 2:, 2:]),
            ("transfer_error", err), ("homography", grad_line("homography", dst, err.mean()))]


@variant("enhance")
def _():
    E = kornia.enhance
    x = images()
    mean, std = torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.25, 0.3])
    return [("brightness", E.adjust_brightness(x, 0.2)),
            ("contrast", E.adjust_contrast(x, torch.tensor([0.5, 1.5]))),
            ("gamma", E.adjust_gamma(x, 2.2, 1.1)),
            ("hue", E.adjust_hue(x, 0.5)),
            ("saturation", E.adjust_saturation(x, torch.tensor([0.3, 2.0]))),
            ("log", E.adjust_log(x, 1.2)), ("sigmoid", E.adjust_sigmoid(x, 0.4, 8.0)),
            ("equalize", E.equalize(x)),
            ("equalize_clahe", E.equalize_clahe(x, 2.0, (4, 4))),
            ("normalize", E.normalize(x, mean, std)),
            ("denormalize", E.denormalize(E.normalize(x, mean, std), mean, std)),
            ("normalize_min_max", E.normalize_min_max(x * 3 - 1)),
            ("sharpness", E.sharpness(x, 0.7)), ("solarize", E.solarize(x, 0.4, 0.1)),
            ("posterize", E.posterize(x, 3)), ("invert", E.invert(x)),
            ("zca_abs", E.zca_whiten(x.permute(0, 2, 3, 1).reshape(-1, C),
                                       unbiased=True).abs()),
            ("histogram", E.histogram(x.flatten(1), torch.linspace(0, 1, 16),
                                      torch.tensor(0.9))),
            ("add_weighted", E.add_weighted(x, 0.3, x.flip(0), 0.7, 0.1))]


@variant("enhance_grad")
def _():
    E = kornia.enhance
    x = images().requires_grad_()
    y = (E.adjust_hue(x, 0.3) + E.adjust_saturation(x, 1.5) + E.adjust_contrast(x, 0.8)
         + E.adjust_gamma(x.clamp_min(1e-3), 1.5) + E.sharpness(x, 0.5))
    return [("enhance", grad_line("enhance", x, y.pow(2).mean()))]


@variant("morphology")
def _():
    M = kornia.morphology
    x = images()
    k = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    k5 = torch.ones(5, 3)
    out = []
    for engine in ("unfold", "convolution"):
        out += [(f"dilation_{engine}", M.dilation(x, k, engine=engine)),
                (f"erosion_{engine}", M.erosion(x, k5, engine=engine)),
                (f"opening_{engine}", M.opening(x, k, engine=engine)),
                (f"closing_{engine}", M.closing(x, k, engine=engine)),
                (f"gradient_{engine}", M.gradient(x, k, engine=engine)),
                (f"top_hat_{engine}", M.top_hat(x, k, engine=engine)),
                (f"bottom_hat_{engine}", M.bottom_hat(x, k, engine=engine))]
    x.requires_grad_()
    out.append(("morphology", grad_line("morphology", x, M.gradient(x, k).pow(2).mean()
                                        + M.opening(x, k5).mean())))
    return out


@variant("losses")
def _():
    L = kornia.losses
    x, y = images(), images()
    x.requires_grad_()
    logits = torch.randn(B, 4, 8, 8, requires_grad=True)
    labels = torch.randint(0, 4, (B, 8, 8))
    out = [("ssim", L.ssim_loss(x, y, 5)), ("ms_ssim", L.MS_SSIMLoss()(x, y)),
           ("psnr", L.psnr_loss(x, y, 1.0)), ("total_variation", L.total_variation(x)),
           ("focal", L.focal_loss(logits, labels, 0.25, 2.0, "mean")),
           ("dice", L.dice_loss(logits, labels)), ("tversky", L.tversky_loss(logits, labels,
                                                                            0.3, 0.7)),
           ("lovasz_softmax", L.lovasz_softmax_loss(logits, labels)),
           ("charbonnier", L.charbonnier_loss(x, y, "mean")),
           ("welsch", L.welsch_loss(x, y, "mean")), ("cauchy", L.cauchy_loss(x, y, "mean")),
           ("geman_mcclure", L.geman_mcclure_loss(x, y, "mean")),
           ("binary_focal", L.binary_focal_loss_with_logits(logits[:, :1], (labels[:, None] > 1)
                                                            .float(), 0.25, 2.0, "mean"))]
    # (not HausdorffERLoss: its class attribute ``conv = torch.conv2d`` binds as a method
    # under jtorch, whose torch functions are Python functions, not builtins: docs/real-programs.md)
    loss = sum(v.sum() for _, v in out)
    loss.backward()
    out += [("losses_x_grad", x.grad), ("losses_logits_grad", logits.grad)]
    return out


@variant("feature")
def _():
    F = kornia.feature
    gray = images(channels=1)
    patches = torch.rand(4, 1, 16, 16)
    out = [("harris", F.harris_response(gray, 0.05)), ("gftt", F.gftt_response(gray)),
           ("hessian", F.hessian_response(gray)),
           ("dog", F.dog_response(torch.rand(B, 1, 3, 16, 16))),
           ("sift", F.SIFTDescriptor(16, 8, 4)(patches)),
           ("hardnet_free_mkd", F.MKDDescriptor(16, whitening=None)(patches)),
           ("laf_orientation", F.PatchDominantGradientOrientation(16)(patches)),
           ("nms", kornia.geometry.subpix.nms2d(F.harris_response(gray, 0.05), (3, 3)))]
    detector = F.ScaleSpaceDetector(num_features=8)
    responses, lafs = detector(images(channels=1, size=64))
    out += [("scale_space_responses", responses), ("scale_space_lafs", lafs)]
    return out


@variant("feature_grad")
def _():
    F = kornia.feature
    gray = images(channels=1).requires_grad_()
    patches = torch.rand(4, 1, 16, 16, requires_grad=True)
    loss = F.harris_response(gray, 0.05).abs().mean() + F.gftt_response(gray).abs().mean()
    desc = F.SIFTDescriptor(16, 8, 4)(patches)
    return [("feature", grad_line("feature", gray, loss)),
            ("sift", grad_line("sift", patches, desc.pow(3).sum()))]


@variant("extras")
def _():
    g = kornia.geometry
    x = images()
    mask = (images(channels=1) > 0.9).float()
    src = torch.rand(B, 6, 2) * 2 - 1
    dst = src + 0.1 * torch.randn(B, 6, 2)
    kernel_weights, affine_weights = g.transform.get_tps_transform(dst, src)
    pts1 = torch.rand(B, 10, 2) * S
    pts2 = pts1 + torch.randn(B, 10, 2)
    k = torch.tensor([[[20.0, 0.0, 16.0], [0.0, 21.0, 15.0], [0.0, 0.0, 1.0]]]).repeat(B, 1, 1)
    dist = torch.tensor([[0.1, -0.05, 0.001, 0.002, 0.0]]).repeat(B, 1)
    heat = torch.randn(B, 2, 8, 8)
    labels = torch.randint(0, 3, (B, 8, 8))
    preds = torch.randint(0, 3, (B, 8, 8))
    coarse, value = g.subpix.conv_soft_argmax2d(heat, output_value=True)
    return [("distance_transform", kornia.contrib.distance_transform(mask)),
            ("tps_kernel", kernel_weights), ("tps_affine", affine_weights),
            ("warp_image_tps", g.transform.warp_image_tps(x, src, kernel_weights,
                                                         affine_weights)),
            ("find_fundamental", g.epipolar.find_fundamental(pts1, pts2)),
            ("undistort_points", g.calibration.undistort_points(pts1, k, dist)),
            ("spatial_soft_argmax", g.subpix.spatial_soft_argmax2d(heat)),
            ("conv_soft_argmax", coarse), ("conv_soft_argmax_value", value),
            ("extract_patches", kornia.contrib.extract_tensor_patches(x, 8, 6)),
            ("raw_to_rgb", kornia.color.raw_to_rgb(x[:, :1], kornia.color.CFA.BG)),
            ("confusion_matrix", kornia.metrics.confusion_matrix(preds, labels, 3)),
            ("mean_iou", kornia.metrics.mean_iou(preds, labels, 3)),
            ("psnr", kornia.metrics.psnr(x, x.flip(0), 1.0)),
            ("ssim", kornia.metrics.ssim(x, x.flip(0), 5)),
            ("solve_cubic", g.solvers.solve_cubic(torch.tensor([[1.0, -6.0, 11.0, -6.0],
                                                                [2.0, 0.0, -1.0, 0.5]])))]


@variant("misc")
def _():
    g = kornia.geometry
    x = images()
    desc1, desc2 = torch.rand(10, 8), torch.rand(12, 8)
    pts1 = torch.rand(20, 2) * S
    pts2 = pts1 + 0.5 * torch.randn(20, 2)
    pts2[::4] = torch.rand(5, 2) * S   # outliers
    homography, inliers = g.ransac.RANSAC("homography", max_iter=5)(pts1, pts2)
    return [("guided_blur", kornia.filters.guided_blur(x, x[:, :1], 3, 0.1)),
            ("jpeg", kornia.enhance.jpeg_codec_differentiable(x, torch.tensor([50.0, 80.0]))),
            ("connected_components", kornia.contrib.connected_components(
                (x[:, :1] > 0.7).float(), 20)),
            ("match_snn", kornia.feature.match_snn(desc1, desc2, 0.9)[0]),
            ("match_smnn", kornia.feature.match_smnn(desc1, desc2, 0.95)[0]),
            ("so3", g.liegroup.So3.exp(0.3 * torch.randn(B, 3)).matrix()),
            ("se3", g.liegroup.Se3.exp(0.3 * torch.randn(B, 6)).matrix()),
            ("so2", g.liegroup.So2.exp(torch.randn(B)).matrix()),
            ("ransac_homography", homography / homography[2, 2]), ("ransac_inliers", inliers),
            ("affine_module", g.transform.Affine(torch.tensor([10.0, 20.0]))(x)),
            ("rgb_to_raw", kornia.color.rgb_to_raw(x, kornia.color.CFA.RG))]


@variant("augmentation_more")
def _():
    x = images()
    out = []
    for aug in (K.RandomErasing(p=1.0), K.RandomMotionBlur(3, 35.0, 0.5, p=1.0),
                K.RandomThinPlateSpline(p=1.0), K.RandomPlanckianJitter(p=1.0),
                K.RandomChannelShuffle(p=1.0), K.RandomElasticTransform(p=1.0),
                K.RandomJigsaw((2, 2), p=1.0), K.RandomBoxBlur((3, 3), p=1.0),
                K.RandomGaussianNoise(std=0.1, p=1.0), K.RandomPosterize(3, p=1.0),
                K.RandomAutoContrast(p=1.0), kornia.augmentation.auto.RandAugment(n=2, m=10)):
        out.append((type(aug).__name__, aug(x)))
    out.append(("RandomCutMixV2", K.RandomCutMixV2(p=1.0)(x, torch.tensor([0, 1]))[0]))
    return out


@variant("registration")
def _():
    # kornia's image registration: a similarity fit by Adam over a 2-level pyramid
    from kornia.geometry.transform import ImageRegistrator
    x = kornia.filters.gaussian_blur2d(images(batch=1), (7, 7), (2.0, 2.0))
    angle = torch.tensor([8.0])
    target = kornia.geometry.transform.rotate(x, angle)
    registrator = ImageRegistrator("similarity", pyramid_levels=2, num_iterations=15, lr=2e-2,
                                   tolerance=0.0)
    model = registrator.register(x, target)
    return [("similarity", model), ("warped", registrator.warp_src_into_dst(x))]


def augment(pipeline, x, name):
    out = pipeline(x)
    params = pipeline._params
    lines = [(name, out)]
    for i, p in enumerate(params):
        for key in sorted(p.data):
            v = p.data[key]
            if isinstance(v, torch.Tensor) and v.is_floating_point():
                lines.append((f"{name} {i} {p.name} {key}", v))
    # the same parameters applied again: the deterministic path
    lines.append((f"{name} replay", pipeline(x, params=params) - out))
    inverse = pipeline.inverse(out)
    lines.append((f"{name} inverse", inverse))
    return lines


@variant("augmentation")
def _():
    x = images()
    seq = K.AugmentationSequential(
        K.RandomAffine(degrees=30.0, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10.0, p=1.0),
        K.ColorJitter(0.2, 0.3, 0.3, 0.1, p=1.0),
        K.RandomHorizontalFlip(p=0.5),
        K.RandomResizedCrop((24, 24), scale=(0.5, 1.0), p=1.0),
        K.RandomGaussianBlur((3, 3), (0.1, 2.0), p=1.0),
        K.RandomPerspective(0.3, p=1.0),
        K.RandomRotation(20.0, p=1.0),
        K.RandomGrayscale(p=0.5),
        K.RandomSharpness(0.5, p=1.0),
        K.RandomSolarize(0.1, 0.1, p=1.0),
        K.RandomEqualize(p=0.5),
    )
    return augment(seq, x, "sequential")


@variant("augmentation_same_on_batch")
def _():
    x = images()
    seq = K.AugmentationSequential(
        K.RandomAffine(degrees=15.0, translate=(0.1, 0.1), p=1.0, same_on_batch=True),
        K.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0, same_on_batch=True),
        K.RandomVerticalFlip(p=0.5, same_on_batch=True),
        K.RandomCrop((28, 28), padding=2, p=1.0, same_on_batch=True),
    )
    return augment(seq, x, "same_on_batch")


@variant("augmentation_grad")
def _():
    x = images().requires_grad_()
    seq = K.AugmentationSequential(
        K.RandomAffine(degrees=25.0, scale=(0.9, 1.1), p=1.0),
        K.ColorJitter(0.2, 0.2, 0.2, 0.05, p=1.0),
        K.RandomResizedCrop((24, 24), p=1.0),
    )
    y = seq(x)
    return [("augmentation", grad_line("augmentation", x, y.pow(2).mean()))]


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    if os.environ.get("KORNIA_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
