"""Driver of pythae (docs/real-programs.md): the installed ``pythae`` package (0.1.2, the
"VAE zoo"), unchanged, builds its autoencoders with their default MLP encoders and decoders on
tiny synthetic images (64 of 1x8x8 in [0, 1], each scaled to a maximum of 1, as pythae's
samplers require), takes a few Adam steps on each model's own loss, and prints every loss, a
checksum of the parameters after the steps, of the reconstructions, embeddings and
interpolations, the importance-sampled ``get_nll`` where the model has one, and of samples
from each sampler, at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``basic``: AE, VAE (MSE and BCE), BetaVAE, DisentangledBetaVAE,
  BetaTCVAE (with and without minibatch stratified sampling).
- ``flows``: VAE_LinNF (planar and radial flows), VAE_IAF (MADE blocks).
- ``iw``: IWAE, MIWAE, CIWAE (importance-weighted bounds over several samples).
- ``mmd``: WAE_MMD (IMQ and RBF kernels), INFOVAE_MMD, RAE_GP (gradient penalty through
  ``torch.autograd.grad``), MSSSIM_VAE (a 3x3 SSIM window).
- ``geometric``: VAMP (pseudo-inputs), SVAE (von Mises-Fisher posterior, hyperspherical
  latent), PoincareVAE (wrapped-normal and Riemannian-normal posteriors and priors), HVAE and
  RHVAE (Hamiltonian leapfrog steps with ``torch.autograd.grad``; RHVAE's metric update).
- ``vqvae``: VQVAE with and without EMA codebook updates.
- ``trainers``: ``TrainingPipeline`` and the trainers: BaseTrainer (VAE, train and eval sets,
  a StepLR scheduler, a checkpoint), CoupledOptimizerTrainer (RAE_L2, PIWAE),
  AdversarialTrainer (Adversarial_AE, FactorVAE), CoupledOptimizerAdversarialTrainer
  (VAEGAN); a callback prints each epoch's losses.
- ``benchmarks``: ``pythae.models.nn.benchmarks``' MNIST convolutional and ResNet
  encoders/decoders (VAE, SVAE, VQVAE) on 1x28x28 images, one SGD step each.
- ``samplers``: NormalSampler, GaussianMixtureSampler (scikit-learn's GMM on the embeddings),
  TwoStageVAESampler, MAFSampler and IAFSampler (fitted for an epoch by BaseTrainer),
  VAMPSampler, RHVAESampler (HMC on the learned metric), PoincareDiskSampler,
  HypersphereUniformSampler and PixelCNNSampler (a PixelCNN over a VQVAE's codes).
- ``saveload``: ``model.save`` into a temporary directory (default and custom architectures,
  the latter pickled by cloudpickle) and ``AutoModel.load_from_folder``; the loaded model's
  predictions and state are compared with the original's; each model is saved again under
  ``pythae_out/<name>/`` (its ``model.pt`` to be read by the other framework).

Training runs on the CPU with ``num_workers=0``; no callbacks for wandb, mlflow or comet.

    python scripts/shared_rng_run.py pythae_models.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py pythae_models.py [VARIANT ... | all]   # jtorch
"""

import logging
import os
import sys
import tempfile
import time
import warnings
import zlib

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from pythae import models as M, samplers as S, trainers as T  # noqa: E402
from pythae.data.datasets import DatasetOutput  # noqa: E402
from pythae.data.preprocessors import DataProcessor  # noqa: E402
from pythae.models.base.base_utils import ModelOutput  # noqa: E402
from pythae.models.nn import BaseEncoder  # noqa: E402
from pythae.pipelines import TrainingPipeline  # noqa: E402
from pythae.trainers.training_callbacks import TrainingCallback  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)  # the trainers' INFO lines (dates, folders) go to stderr

N, IMG = 64, (1, 8, 8)

VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def images(n=N, shape=IMG):
    x = torch.rand(n, *shape)
    return x / x.amax(dim=tuple(range(1, x.dim())), keepdim=True)


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7) and the
    largest magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def params_checksum(model):
    flat = torch.cat([p.detach().double().flatten() for p in model.parameters()])
    return f"{len(list(model.parameters()))} tensors {flat.numel()} values {checksum(flat)}"


LOSS_KEYS = ("loss", "recon_loss", "reg_loss", "encoder_loss", "decoder_loss",
             "autoencoder_loss", "discriminator_loss", "embedding_loss", "vq_loss")


def losses(out):
    return " ".join(f"{k} {out[k].item()!r}" if out[k].numel() == 1 else f"{k} [{checksum(out[k])}]"
                    for k in LOSS_KEYS if k in out.keys() and torch.is_tensor(out[k]))


def train_steps(name, build, x, steps=3, lr=1e-3, optimizer=torch.optim.Adam, **kwargs):
    """The model ``build()`` returns, built after reseeding from its name (so that a model's
    numbers do not depend on what the models before it drew), a few Adam steps on its own
    ``loss`` (what BaseTrainer's step does), then its parameters, reconstruction, embedding
    and an interpolation."""
    torch.manual_seed(zlib.crc32(name.encode()))
    model = build()
    opt = optimizer(model.parameters(), lr=lr)
    model.train()
    for step in range(steps):
        batch = x[16 * step:16 * step + 32]
        out = model(DatasetOutput(data=batch), epoch=step + 1, dataset_size=len(x), **kwargs)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        model.update()
        print(f"{name} step {step} {losses(out)}")
    print(f"{name} params {params_checksum(model)}")
    model.eval()
    pred = model.predict(x[:8])
    print(f"{name} predict recon {checksum(pred.recon_x)}")
    print(f"{name} predict embedding {checksum(pred.embedding)}")
    # not under no_grad: RAE_GP, HVAE and RHVAE differentiate inside their forward
    print(f"{name} reconstruct {checksum(model.reconstruct(x[:8]))}")
    print(f"{name} embed {checksum(model.embed(x[:8]))}")
    print(f"{name} interpolate {checksum(model.interpolate(x[:2], x[2:4], granularity=3))}")
    # the importance-sampled negative log-likelihood (HVAE's reshapes to MNIST's 1x28x28)
    if hasattr(model, "get_nll") and not isinstance(model, M.HVAE):
        print(f"{name} nll {float(model.get_nll(x[:4], n_samples=3, batch_size=3))!r}")
    return model


def config(cls, **kw):
    return cls(input_dim=IMG, latent_dim=kw.pop("latent_dim", 3), **kw)


@variant("basic")
def _():
    x = images()
    train_steps("AE", lambda: M.AE(config(M.AEConfig)), x)
    train_steps("VAE-mse", lambda: M.VAE(config(M.VAEConfig)), x)
    train_steps("VAE-bce", lambda: M.VAE(config(M.VAEConfig, reconstruction_loss="bce")), x)
    train_steps("BetaVAE", lambda: M.BetaVAE(config(M.BetaVAEConfig, beta=4.0)), x)
    train_steps("DisentangledBetaVAE", lambda: M.DisentangledBetaVAE(
        config(M.DisentangledBetaVAEConfig, beta=5.0, C=10.0, warmup_epoch=2)), x)
    train_steps("BetaTCVAE-mss", lambda: M.BetaTCVAE(config(M.BetaTCVAEConfig, beta=2.0)), x)
    train_steps("BetaTCVAE-nomss", lambda: M.BetaTCVAE(
        config(M.BetaTCVAEConfig, alpha=0.5, gamma=2.0, use_mss=False)), x)


@variant("flows")
def _():
    x = images()
    train_steps("VAE_LinNF-planar", lambda: M.VAE_LinNF(config(M.VAE_LinNF_Config)), x)
    train_steps("VAE_LinNF-mixed", lambda: M.VAE_LinNF(
        config(M.VAE_LinNF_Config, flows=["Radial", "Planar", "Radial"])), x)
    train_steps("VAE_IAF", lambda: M.VAE_IAF(config(M.VAE_IAF_Config, n_made_blocks=2,
                                            n_hidden_in_made=2, hidden_size=16)), x)


@variant("iw")
def _():
    x = images()
    train_steps("IWAE", lambda: M.IWAE(config(M.IWAEConfig, number_samples=4)), x)
    train_steps("MIWAE", lambda: M.MIWAE(config(M.MIWAEConfig, number_samples=3,
                                        number_gradient_estimates=2)), x)
    train_steps("CIWAE", lambda: M.CIWAE(config(M.CIWAEConfig, number_samples=4, beta=0.3)), x)


@variant("mmd")
def _():
    x = images()
    train_steps("WAE_MMD-imq", lambda: M.WAE_MMD(config(M.WAE_MMD_Config)), x)
    train_steps("WAE_MMD-rbf", lambda: M.WAE_MMD(config(M.WAE_MMD_Config, kernel_choice="rbf",
                                                kernel_bandwidth=2.0, reg_weight=1.0)), x)
    train_steps("INFOVAE_MMD", lambda: M.INFOVAE_MMD(config(M.INFOVAE_MMD_Config, alpha=0.5,
                                                    lbd=2.0)), x)
    train_steps("RAE_GP", lambda: M.RAE_GP(config(M.RAE_GP_Config, embedding_weight=1e-2,
                                          reg_weight=1e-3)), x)
    train_steps("MSSSIM_VAE", lambda: M.MSSSIM_VAE(config(M.MSSSIM_VAEConfig, window_size=3)), x)


@variant("geometric")
def _():
    x = images()
    train_steps("VAMP", lambda: M.VAMP(config(M.VAMPConfig, number_components=5,
                                      linear_scheduling_steps=2)), x)
    train_steps("SVAE", lambda: M.SVAE(config(M.SVAEConfig)), x)
    for post in ("wrapped_normal", "riemannian_normal"):
        train_steps(f"PoincareVAE-{post}", lambda post=post: M.PoincareVAE(config(
            M.PoincareVAEConfig, latent_dim=2, prior_distribution=post,
            posterior_distribution=post, curvature=0.7)), x)
    train_steps("HVAE", lambda: M.HVAE(config(M.HVAEConfig, n_lf=2, eps_lf=0.01,
                                      learn_eps_lf=True, learn_beta_zero=True)), x)
    train_steps("RHVAE", lambda: M.RHVAE(config(M.RHVAEConfig, n_lf=2, eps_lf=0.01,
                                        temperature=0.8, regularization=0.01)), x)


@variant("vqvae")
def _():
    x = images()
    train_steps("VQVAE", lambda: M.VQVAE(config(M.VQVAEConfig, num_embeddings=16)), x)
    train_steps("VQVAE-ema", lambda: M.VQVAE(config(M.VQVAEConfig, num_embeddings=16, use_ema=True,
                                            decay=0.9)), x)


class PrintLosses(TrainingCallback):
    """Prints what the trainers log at each epoch's end (their ``metrics``)."""

    def __init__(self, name):
        self.name = name

    def on_log(self, training_config, logs, **kwargs):
        text = " ".join(f"{k} {v!r}" for k, v in sorted(logs.items()))
        print(f"{self.name} epoch {kwargs.get('global_step')} {text}")


def run_pipeline(name, model, config_, x, eval_x=None, folder=None):
    pipeline = TrainingPipeline(model=model, training_config=config_)
    pipeline(train_data=x, eval_data=eval_x, callbacks=[PrintLosses(name)])
    trained = pipeline.trainer._best_model
    print(f"{name} best params {params_checksum(trained)}")
    final = os.path.join(pipeline.trainer.training_dir, "final_model")
    print(f"{name} final_model files {sorted(os.listdir(final))}")
    loaded = M.AutoModel.load_from_folder(final)
    print(f"{name} reloaded params {params_checksum(loaded)}")
    if folder is not None:
        checkpoints = sorted(d for d in os.listdir(pipeline.trainer.training_dir)
                             if d.startswith("checkpoint"))
        print(f"{name} checkpoints {checkpoints}")
        files = sorted(os.listdir(os.path.join(pipeline.trainer.training_dir,
                                               checkpoints[-1])))
        print(f"{name} checkpoint files {files}")
    return trained


@variant("trainers")
def _():
    x = images()
    common = {"num_epochs": 2, "per_device_train_batch_size": 16,
                  "per_device_eval_batch_size": 16, "train_dataloader_num_workers": 0,
                  "eval_dataloader_num_workers": 0, "no_cuda": True, "seed": 3}
    with tempfile.TemporaryDirectory() as tmp:
        run_pipeline("BaseTrainer-VAE", M.VAE(config(M.VAEConfig)), T.BaseTrainerConfig(
            output_dir=tmp, learning_rate=1e-3, scheduler_cls="StepLR",
            scheduler_params={"step_size": 1, "gamma": 0.5}, steps_saving=2, **common),
            x[:48], x[48:], folder=True)
        run_pipeline("BaseTrainer-SGD-BetaVAE", M.BetaVAE(config(M.BetaVAEConfig)),
                     T.BaseTrainerConfig(output_dir=tmp, learning_rate=1e-2,
                                         optimizer_cls="SGD",
                                         optimizer_params={"momentum": 0.9},
                                         keep_best_on_train=True, **common), x)
        coupled = {"encoder_learning_rate": 1e-3, "decoder_learning_rate": 2e-3}
        run_pipeline("Coupled-RAE_L2", M.RAE_L2(config(M.RAE_L2_Config)),
                     T.CoupledOptimizerTrainerConfig(
                         output_dir=tmp, decoder_optimizer_params={"weight_decay": 1e-3},
                         **coupled, **common), x[:48], x[48:])
        run_pipeline("Coupled-PIWAE", M.PIWAE(config(M.PIWAEConfig, number_samples=3,
                                                     number_gradient_estimates=2)),
                     T.CoupledOptimizerTrainerConfig(output_dir=tmp, **coupled, **common),
                     x[:48], x[48:])
        adversarial = {"autoencoder_learning_rate": 1e-3, "discriminator_learning_rate": 1e-3}
        run_pipeline("Adversarial-AAE", M.Adversarial_AE(config(M.Adversarial_AE_Config)),
                     T.AdversarialTrainerConfig(output_dir=tmp, **adversarial, **common),
                     x[:48], x[48:])
        run_pipeline("Adversarial-FactorVAE", M.FactorVAE(config(M.FactorVAEConfig, gamma=3.0)),
                     T.AdversarialTrainerConfig(output_dir=tmp, **adversarial, **common),
                     x[:48], x[48:])
        run_pipeline("CoupledAdversarial-VAEGAN", M.VAEGAN(config(M.VAEGANConfig)),
                     T.CoupledOptimizerAdversarialTrainerConfig(
                         output_dir=tmp, encoder_learning_rate=1e-3, decoder_learning_rate=1e-3,
                         discriminator_learning_rate=1e-3, **common), x[:48], x[48:])


@variant("benchmarks")
def _():
    from pythae.models.nn.benchmarks.mnist import (
        Decoder_Conv_AE_MNIST,
        Decoder_ResNet_AE_MNIST,
        Decoder_ResNet_VQVAE_MNIST,
        Encoder_Conv_SVAE_MNIST,
        Encoder_Conv_VAE_MNIST,
        Encoder_ResNet_VAE_MNIST,
        Encoder_ResNet_VQVAE_MNIST,
    )
    from pythae.models.nn.default_architectures import Decoder_AE_MLP, Encoder_VAE_MLP
    shape = (1, 28, 28)
    x = images(8, shape)
    cfg = M.VAEConfig(input_dim=shape, latent_dim=4)
    with torch.no_grad():
        enc = Encoder_VAE_MLP(cfg)(x)
        print(f"Encoder_VAE_MLP embedding {checksum(enc.embedding)} "
              f"log_covariance {checksum(enc.log_covariance)}")
        print(f"Decoder_AE_MLP {checksum(Decoder_AE_MLP(cfg)(enc.embedding).reconstruction)}")
    vq = M.VQVAEConfig(input_dim=shape, latent_dim=4, num_embeddings=8)
    for name, build in [
            ("conv-VAE", lambda: M.VAE(cfg, Encoder_Conv_VAE_MNIST(cfg),
                                       Decoder_Conv_AE_MNIST(cfg))),
            ("conv-SVAE", lambda: M.SVAE(M.SVAEConfig(input_dim=shape, latent_dim=4),
                                         Encoder_Conv_SVAE_MNIST(cfg),
                                         Decoder_Conv_AE_MNIST(cfg))),
            ("resnet-VAE", lambda: M.VAE(cfg, Encoder_ResNet_VAE_MNIST(cfg),
                                         Decoder_ResNet_AE_MNIST(cfg))),
            ("resnet-VQVAE", lambda: M.VQVAE(vq, Encoder_ResNet_VQVAE_MNIST(vq),
                                             Decoder_ResNet_VQVAE_MNIST(vq)))]:
        # SGD, not Adam: the biases of the convolutions before BatchNorm have a gradient of
        # exactly 0, computed as rounding noise (1e-8), which Adam's first step (g / |g|) turns
        # into updates of +-lr that differ between any two implementations
        train_steps(name, build, torch.cat([x, x]), steps=1, lr=0.05, optimizer=torch.optim.SGD)


def fit_config(tmp):
    return T.BaseTrainerConfig(output_dir=tmp, num_epochs=1, learning_rate=1e-3,
                               per_device_train_batch_size=16, per_device_eval_batch_size=16,
                               no_cuda=True, seed=5)


def print_samples(name, sampler, **kw):
    torch.manual_seed(11)
    gen = sampler.sample(num_samples=6, batch_size=4, **kw)
    print(f"{name} samples {tuple(gen.shape)} {checksum(gen)}")


@variant("samplers")
def _():
    x = images()
    vae = train_steps("sampler-VAE", lambda: M.VAE(config(M.VAEConfig)), x, steps=2)
    print_samples("NormalSampler", S.NormalSampler(vae))
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # the sampler prints the folder it creates
        print_samples("NormalSampler-saved", S.NormalSampler(vae), output_dir="gen",
                      save_sampler_config=True)
        print(f"NormalSampler-saved files {sorted(os.listdir('gen'))}")
        os.chdir(cwd)
    gmm = S.GaussianMixtureSampler(vae, S.GaussianMixtureSamplerConfig(n_components=3))
    np.random.seed(0)  # scikit-learn's k-means initialisation draws from NumPy's global state
    gmm.fit(x)
    print(f"GaussianMixtureSampler means {checksum(torch.tensor(gmm.gmm.means_))}")
    print_samples("GaussianMixtureSampler", gmm)
    with tempfile.TemporaryDirectory() as tmp:
        two = S.TwoStageVAESampler(vae, S.TwoStageVAESamplerConfig(second_layers_dim=32))
        two.fit(x, eval_data=x[:16], training_config=fit_config(tmp))
        print(f"TwoStageVAESampler second params {params_checksum(two.second_vae)}")
        print_samples("TwoStageVAESampler", two)
        for cls, cfg in ((S.MAFSampler, S.MAFSamplerConfig), (S.IAFSampler, S.IAFSamplerConfig)):
            sampler = cls(vae, cfg(n_made_blocks=2, n_hidden_in_made=2, hidden_size=16))
            sampler.fit(x, training_config=fit_config(tmp))
            flow = sampler.maf_model if cls is S.MAFSampler else sampler.iaf_model
            print(f"{cls.__name__} flow params {params_checksum(flow)}")
            print_samples(cls.__name__, sampler)
    vamp = train_steps("sampler-VAMP", lambda: M.VAMP(config(M.VAMPConfig, number_components=4)), x,
                       steps=2)
    print_samples("VAMPSampler", S.VAMPSampler(vamp))
    rhvae = train_steps("sampler-RHVAE", lambda: M.RHVAE(config(M.RHVAEConfig, n_lf=2,
                                                                eps_lf=0.01)), x, steps=2)
    print_samples("RHVAESampler", S.RHVAESampler(rhvae, S.RHVAESamplerConfig(
        mcmc_steps_nbr=3, n_lf=2, eps_lf=0.01)))
    pvae = train_steps("sampler-PoincareVAE", lambda: M.PoincareVAE(config(
        M.PoincareVAEConfig, latent_dim=2, prior_distribution="riemannian_normal")), x, steps=2)
    print_samples("PoincareDiskSampler", S.PoincareDiskSampler(pvae))
    svae = train_steps("sampler-SVAE", lambda: M.SVAE(config(M.SVAEConfig)), x, steps=2)
    print_samples("HypersphereUniformSampler", S.HypersphereUniformSampler(svae))
    vqvae = train_steps("sampler-VQVAE", lambda: M.VQVAE(config(M.VQVAEConfig,
                                                                num_embeddings=8)), x, steps=2)
    with tempfile.TemporaryDirectory() as tmp:
        pixelcnn = S.PixelCNNSampler(vqvae, S.PixelCNNSamplerConfig(n_layers=3, kernel_size=3))
        pixelcnn.fit(x, training_config=fit_config(tmp))
        print(f"PixelCNNSampler params {params_checksum(pixelcnn.pixelcnn_model)}")
        print_samples("PixelCNNSampler", pixelcnn)


class TinyEncoder(BaseEncoder):
    """A user-defined encoder (pythae pickles it with cloudpickle on ``save``)."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 16),
                                       torch.nn.Tanh())
        self.mu = torch.nn.Linear(16, 3)
        self.logvar = torch.nn.Linear(16, 3)

    def forward(self, x):
        h = self.net(x)
        return ModelOutput(embedding=self.mu(h), log_covariance=self.logvar(h))


@variant("saveload")
def _():
    x = images()
    for name, build in [("VAE", lambda: M.VAE(config(M.VAEConfig))),
                        ("VQVAE", lambda: M.VQVAE(config(M.VQVAEConfig, num_embeddings=8))),
                        ("RHVAE", lambda: M.RHVAE(config(M.RHVAEConfig))),
                        ("VAE-custom", lambda: M.VAE(config(M.VAEConfig),
                                                     encoder=TinyEncoder()))]:
        model = train_steps(f"save-{name}", build, x, steps=2)
        with tempfile.TemporaryDirectory() as tmp:
            model.save(tmp)
            print(f"save-{name} files {sorted(os.listdir(tmp))}")
            loaded = M.AutoModel.load_from_folder(tmp)
            print(f"save-{name} loaded {type(loaded).__name__} {params_checksum(loaded)}")
            state, lstate = model.state_dict(), loaded.state_dict()
            same = list(state) == list(lstate) and all(
                torch.equal(state[k], lstate[k]) for k in state)
            print(f"save-{name} state equal {same}")
            loaded.eval()
            print(f"save-{name} loaded predict {checksum(loaded.predict(x[:8]).recon_x)}")
        model.save(os.path.join("pythae_out", name))  # model.pt: compared across frameworks


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    DataProcessor()  # the data path the samplers and pipelines use
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
