"""Driver of MACE (docs/real-programs.md): the installed package (mace-torch 0.3.16 on e3nn
0.6), unchanged, used as someone training their own MACE potential uses it (no foundation
models, no downloads): ase molecules and a periodic crystal with seeded random displacements
labelled by ase's EMT calculator, ``mace.data.config_from_atoms`` and
``AtomicData.from_config``, MACE's torch_geometric-style DataLoader, ``MACE`` and
``ScaleShiftMACE`` (float64, small hyperparameters) with energies, forces, virials and
stress, ``compute_avg_num_neighbors`` and ``compute_mean_rms_energy_forces``, training steps
with ``tools.train.take_step`` (weighted energy+forces(+stress) losses, Adam, gradient
clipping, torch-ema's EMA) and ``tools.train.evaluate`` (its torchmetrics Metric), Hessians,
the ASE ``MACECalculator`` built from a model object, save/load, and ``torch.compile``.
Each tensor is printed as a checksum (sums and largest magnitude) at full precision, and a
difference that is zero up to rounding (equivariance, symmetry, round trips) as whether it is
within 1e-12.

    python scripts/shared_rng_run.py drive_mace.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_mace.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant but ``committee`` (``all`` adds it). Each variant
reseeds (``torch.manual_seed`` and its own NumPy generator), so a subset prints what the full
run prints for it. torchvision is hidden from torchmetrics (mace.tools imports torchmetrics; no
MACE code needs torchvision).
"""

import io
import logging
import os
import sys
import tempfile
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from lightning_utilities.core import imports as _lu_imports  # noqa: E402

_check_requirement = _lu_imports.RequirementCache._check_requirement


def _without_torchvision(self):
    _check_requirement(self)
    if (self.requirement or "").startswith("torchvision"):
        self.available = False


_lu_imports.RequirementCache._check_requirement = _without_torchvision
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

import ase.build  # noqa: E402
from ase.calculators.emt import EMT  # noqa: E402
from e3nn import o3  # noqa: E402
from mace import data, modules, tools  # noqa: E402
from mace.calculators import MACECalculator  # noqa: E402
from mace.tools import torch_geometric  # noqa: E402
from mace.tools.train import evaluate, take_step  # noqa: E402
from torch_ema import ExponentialMovingAverage  # noqa: E402

torch.set_default_dtype(torch.float64)

VARIANTS = {}
DEFAULT = []


def variant(name, default=True):
    def register(build):
        VARIANTS[name] = build
        if default:
            DEFAULT.append(name)
        return build
    return register


def checksum(a):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    a = np.asarray(a.detach().double().numpy() if isinstance(a, torch.Tensor) else a,
                   dtype=np.float64).ravel()
    w = 1.0 + (np.arange(a.size) % 7) / 6
    return (f"abssum {float(np.abs(a).sum())!r} wsum {float((a * w).sum())!r} "
            f"absmax {float(np.abs(a).max()) if a.size else 0.0!r}")


def show(name, t):
    if isinstance(t, (torch.Tensor, np.ndarray)):
        print(f"{name} shape {tuple(t.shape)} dtype {t.dtype} {checksum(t)}")
    else:
        print(f"{name} {t!r}")


def show_small(name, t, tol=1e-12):
    """A difference that is zero up to float64 rounding: whether its largest magnitude is
    within ``tol`` (its rounding-level value differs between any two implementations)."""
    print(f"{name} within {tol:g}: {bool(float(t.detach().abs().max()) <= tol)}")


def params_checksum(name, model):
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    show(f"{name} params ({len(list(model.parameters()))} tensors)", flat)


KEYS = data.KeySpecification(info_keys={"energy": "REF_energy", "stress": "REF_stress"},
                             arrays_keys={"forces": "REF_forces"})


def labelled(atoms):
    """Attach EMT energy, forces (and stress where periodic) as MACE's REF_ keys."""
    atoms.calc = EMT()
    atoms.info["REF_energy"] = atoms.get_potential_energy()
    atoms.arrays["REF_forces"] = atoms.get_forces()
    if atoms.pbc.all():
        atoms.info["REF_stress"] = atoms.get_stress()
    atoms.calc = None
    return atoms


def molecules(rng, copies=2):
    """H2O, CH4, NH3, CO2 and N2 (EMT has parameters for H, C, N, O), each rattled."""
    out = []
    for _ in range(copies):
        for name in ("H2O", "CH4", "NH3", "CO2", "N2"):
            atoms = ase.build.molecule(name)
            atoms.positions += 0.08 * rng.standard_normal(atoms.positions.shape)
            out.append(labelled(atoms))
    return out


def crystals(rng, count=3):
    """A rattled, slightly strained 2-atom-wide fcc Cu/Ni cell (periodic, 8 atoms)."""
    out = []
    for i in range(count):
        atoms = ase.build.bulk("Cu", "fcc", a=3.6, cubic=True).repeat((2, 1, 1))
        atoms.symbols[[1, 6]] = "Ni"
        atoms.set_cell(atoms.cell[:] @ (np.eye(3) + 0.01 * (i + 1) * rng.standard_normal((3, 3))),
                       scale_atoms=True)
        atoms.positions += 0.05 * rng.standard_normal(atoms.positions.shape)
        out.append(labelled(atoms))
    return out


def dataset(atoms_list, z_table, r_max):
    configs = [data.config_from_atoms(a, key_specification=KEYS) for a in atoms_list]
    return [data.AtomicData.from_config(c, z_table=z_table, cutoff=r_max) for c in configs]


def e0s(z_table):
    return np.array([-0.5 - 0.25 * i for i in range(len(z_table))])


def build(cls, z_table, r_max, avg, *, interaction="RealAgnosticResidualInteractionBlock",
          correlation=3, **extra):
    return cls(r_max=r_max, num_bessel=8, num_polynomial_cutoff=5, max_ell=2,
               interaction_cls=modules.interaction_classes[interaction],
               interaction_cls_first=modules.interaction_classes[interaction],
               num_interactions=2, num_elements=len(z_table),
               hidden_irreps=o3.Irreps("8x0e+8x1o"), MLP_irreps=o3.Irreps("16x0e"),
               atomic_energies=e0s(z_table), avg_num_neighbors=avg,
               atomic_numbers=z_table.zs, correlation=correlation,
               gate=torch.nn.functional.silu, **extra)


def show_batch(tag, batch):
    print(f"{tag} num_graphs {int(batch.num_graphs)} nodes {batch.positions.shape[0]} "
          f"edges {batch.edge_index.shape[1]}")
    show(f"{tag} edge_index", batch.edge_index)
    show(f"{tag} shifts", batch.shifts)
    show(f"{tag} node_attrs", batch.node_attrs)
    show(f"{tag} ptr", batch.ptr)


def show_output(tag, out, keys=("energy", "node_energy", "forces", "virials", "stress")):
    for k in keys:
        if out.get(k) is not None:
            show(f"{tag} {k}", out[k])


def rotation(rng):
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    return q * np.sign(np.linalg.det(q))


@variant("molecules")
def run_molecules():
    """MACE on a batch of rattled molecules: graph construction, energies, forces, node
    energies; rotation invariance of the energy and equivariance of the forces; three
    interaction classes and correlation 2 and 3."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    z_table = tools.AtomicNumberTable([1, 6, 7, 8])
    r_max = 4.5
    ds = dataset(molecules(rng), z_table, r_max)
    loader = torch_geometric.dataloader.DataLoader(ds, batch_size=5, shuffle=False)
    avg = modules.compute_avg_num_neighbors(loader)
    show("avg_num_neighbors", avg)
    batch = next(iter(loader))
    show_batch("batch0", batch)
    for interaction, corr in (("RealAgnosticResidualInteractionBlock", 3),
                              ("RealAgnosticInteractionBlock", 2),
                              ("RealAgnosticDensityResidualInteractionBlock", 2)):
        model = build(modules.MACE, z_table, r_max, avg, interaction=interaction,
                      correlation=corr)
        tag = f"{interaction}/c{corr}"
        print(f"{tag} parameters {tools.count_parameters(model)}")
        params_checksum(tag, model)
        for i, b in enumerate(loader):
            out = model(b.to_dict(), training=False, compute_force=True)
            show_output(f"{tag} batch{i}", out)
        # rotate every molecule: energies invariant, forces rotate
        R = rotation(rng)
        d = batch.to_dict()
        out = model(dict(d), compute_force=True)
        d_rot = dict(d)
        d_rot["positions"] = d["positions"] @ torch.tensor(R.T)
        out_rot = model(d_rot, compute_force=True)
        show_small(f"{tag} rotated energy - energy", out_rot["energy"] - out["energy"])
        show_small(f"{tag} rotated forces - R forces",
             out_rot["forces"] - out["forces"] @ torch.tensor(R.T))


@variant("crystal")
def run_crystal():
    """ScaleShiftMACE on a periodic Cu/Ni cell: statistics from the data, energies, forces,
    virials and stress, and the stress against a finite difference of the energy."""
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    z_table = tools.AtomicNumberTable([28, 29])
    r_max = 4.0
    atoms_list = crystals(rng)
    ds = dataset(atoms_list, z_table, r_max)
    loader = torch_geometric.dataloader.DataLoader(ds, batch_size=3, shuffle=False)
    batch = next(iter(loader))
    show_batch("crystal", batch)
    show("crystal cell", batch.cell)
    avg = modules.compute_avg_num_neighbors(loader)
    mean, rms = modules.compute_mean_rms_energy_forces(loader, e0s(z_table))
    show("avg_num_neighbors", avg)
    show("mean", mean)
    show("rms", rms)
    model = build(modules.ScaleShiftMACE, z_table, r_max, avg, atomic_inter_scale=rms,
                  atomic_inter_shift=mean)
    params_checksum("scaleshift", model)
    out = model(batch.to_dict(), compute_force=True, compute_virials=True,
                compute_stress=True)
    show_output("scaleshift", out)
    print(f"scaleshift output keys {sorted(k for k, v in out.items() if v is not None)}")
    show("scaleshift interaction_energy", out["interaction_energy"])
    # finite-difference stress check on the first cell (float64)
    atoms = atoms_list[0].copy()
    eps = 1e-5
    strain = np.zeros((3, 3))
    strain[0, 1] = strain[1, 0] = eps

    def energy(a):
        d = data.AtomicData.from_config(data.config_from_atoms(a, key_specification=KEYS),
                                        z_table=z_table, cutoff=r_max)
        b = next(iter(torch_geometric.dataloader.DataLoader([d], batch_size=1)))
        return float(model(b.to_dict(), compute_force=False)["energy"].detach()[0])

    plus, minus = atoms.copy(), atoms.copy()
    plus.set_cell(atoms.cell[:] @ (np.eye(3) + strain), scale_atoms=True)
    minus.set_cell(atoms.cell[:] @ (np.eye(3) - strain), scale_atoms=True)
    fd = (energy(plus) - energy(minus)) / (4 * eps) / atoms.get_volume()
    print(f"stress[0,1] autograd {float(out['stress'][0, 0, 1])!r} finite-diff {fd:.6e}")


def train_run(tag, model, loss_fn, train_loader, valid_loader, output_args, steps, lr):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, amsgrad=True)
    ema = ExponentialMovingAverage(model.parameters(), decay=0.9)
    for step in range(steps):
        for i, batch in enumerate(train_loader):
            loss, _ = take_step(model, loss_fn, batch, optimizer, ema, output_args,
                                max_grad_norm=10.0, device=torch.device("cpu"))
            print(f"{tag} step {step} batch {i} loss {float(loss)!r}")
    params_checksum(f"{tag} trained", model)
    with ema.average_parameters():
        params_checksum(f"{tag} ema", model)
        loss, aux = evaluate(model, loss_fn, valid_loader, output_args, torch.device("cpu"))
    print(f"{tag} ema valid loss {float(loss)!r}")
    for k in sorted(aux):
        if k != "time" and aux[k] is not None:
            show(f"{tag} ema valid {k}", np.asarray(aux[k], dtype=np.float64))
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    show(f"{tag} last grads ({len(grads)})", torch.cat([g.reshape(-1) for g in grads]))


@variant("train")
def run_train():
    """Training MACE on molecules with take_step (WeightedEnergyForcesLoss, Adam with amsgrad,
    clipping, EMA) and evaluate (MACELoss metrics) under the EMA weights."""
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    z_table = tools.AtomicNumberTable([1, 6, 7, 8])
    r_max = 4.5
    train = dataset(molecules(rng, copies=2), z_table, r_max)
    valid = dataset(molecules(rng, copies=1), z_table, r_max)
    train_loader = torch_geometric.dataloader.DataLoader(train, batch_size=4, shuffle=True,
                                                         drop_last=False)
    valid_loader = torch_geometric.dataloader.DataLoader(valid, batch_size=5, shuffle=False)
    avg = modules.compute_avg_num_neighbors(train_loader)
    model = build(modules.MACE, z_table, r_max, avg, correlation=3)
    loss_fn = modules.WeightedEnergyForcesLoss(energy_weight=1.0, forces_weight=10.0)
    print(f"loss_fn {loss_fn!r}")
    output_args = {"forces": True, "virials": False, "stress": False}
    train_run("molecules", model, loss_fn, train_loader, valid_loader, output_args, 2, 1e-2)


@variant("train_stress")
def run_train_stress():
    """Training ScaleShiftMACE on the periodic cells with WeightedEnergyForcesStressLoss (the
    stress by the displacement trick inside the graph, create_graph=True)."""
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    z_table = tools.AtomicNumberTable([28, 29])
    r_max = 4.0
    train = dataset(crystals(rng, count=4), z_table, r_max)
    valid = dataset(crystals(rng, count=2), z_table, r_max)
    train_loader = torch_geometric.dataloader.DataLoader(train, batch_size=2, shuffle=True)
    valid_loader = torch_geometric.dataloader.DataLoader(valid, batch_size=2, shuffle=False)
    avg = modules.compute_avg_num_neighbors(train_loader)
    mean, rms = modules.compute_mean_rms_energy_forces(train_loader, e0s(z_table))
    model = build(modules.ScaleShiftMACE, z_table, r_max, avg, correlation=2,
                  atomic_inter_scale=rms, atomic_inter_shift=mean)
    loss_fn = modules.WeightedEnergyForcesStressLoss(energy_weight=1.0, forces_weight=10.0,
                                                     stress_weight=100.0)
    output_args = {"forces": True, "virials": False, "stress": True}
    train_run("crystal", model, loss_fn, train_loader, valid_loader, output_args, 2, 5e-3)


@variant("hessian")
def run_hessian():
    """compute_hessian=True on one molecule (MACE's loop over force components)."""
    torch.manual_seed(4)
    rng = np.random.default_rng(4)
    z_table = tools.AtomicNumberTable([1, 8])
    r_max = 4.0
    atoms = ase.build.molecule("H2O")
    atoms.positions += 0.05 * rng.standard_normal(atoms.positions.shape)
    ds = dataset([labelled(atoms)], z_table, r_max)
    batch = next(iter(torch_geometric.dataloader.DataLoader(ds, batch_size=1)))
    model = build(modules.MACE, z_table, r_max, 2.0, correlation=2)
    out = model(batch.to_dict(), compute_force=True, compute_hessian=True)
    show_output("hessian", out, keys=("energy", "forces", "hessian"))
    h = out["hessian"].reshape(9, 9)
    show_small("hessian asymmetry", h - h.T)


def calculator_run(tag, n, seed):
    torch.manual_seed(seed)
    rng = np.random.default_rng(5)
    z_table = tools.AtomicNumberTable([28, 29])
    r_max = 4.0
    atoms_list = crystals(rng, count=2)
    ds = dataset(atoms_list, z_table, r_max)
    loader = torch_geometric.dataloader.DataLoader(ds, batch_size=2)
    avg = modules.compute_avg_num_neighbors(loader)
    models = [build(modules.ScaleShiftMACE, z_table, r_max, avg, correlation=2,
                    atomic_inter_scale=1.0, atomic_inter_shift=0.0) for _ in range(n)]
    calc = MACECalculator(models=models if n > 1 else models[0], device="cpu",
                          default_dtype="float64")
    atoms = atoms_list[1].copy()
    atoms.calc = calc
    print(f"{tag} energy {atoms.get_potential_energy()!r}")
    show(f"{tag} forces", atoms.get_forces())
    show(f"{tag} stress", atoms.get_stress())
    show(f"{tag} node_energy", calc.results["node_energy"])
    for k in ("energy_var", "forces_comm", "forces_var", "stress_var"):
        if k in calc.results:
            show(f"{tag} {k}", np.asarray(calc.results[k]))
    atoms.positions[0] += 0.01
    print(f"{tag} moved energy {atoms.get_potential_energy()!r}")


@variant("calculator")
def run_calculator():
    """The ASE MACECalculator built from a model object: energy, forces, stress and node
    energies on a periodic cell, recomputed after a move."""
    calculator_run("calc", 1, 5)


@variant("committee", default=False)
def run_committee():
    """The MACECalculator of a committee of two models: mean energy, forces and stress and
    their variances. Not run by default: MACECalculator scales ``tensor.cpu().numpy()`` in
    place (``data *= unit_conv``), and jtorch's Tensor.numpy() is read-only."""
    calculator_run("committee", 2, 8)


@variant("serialize")
def run_serialize():
    """state_dict and whole-model torch.save/torch.load round trips give the same energies."""
    torch.manual_seed(6)
    rng = np.random.default_rng(6)
    z_table = tools.AtomicNumberTable([1, 6, 7, 8])
    r_max = 4.5
    ds = dataset(molecules(rng, copies=1), z_table, r_max)
    batch = next(iter(torch_geometric.dataloader.DataLoader(ds, batch_size=5)))
    model = build(modules.MACE, z_table, r_max, 3.0, correlation=2)
    ref = model(batch.to_dict(), compute_force=True)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf)
    print(f"state_dict keys {len(sd)} first {sorted(sd)[:3]}")
    fresh = build(modules.MACE, z_table, r_max, 3.0, correlation=2)
    fresh.load_state_dict(sd)
    out = fresh(batch.to_dict(), compute_force=True)
    show_small("state_dict energy diff", out["energy"] - ref["energy"])
    show_small("state_dict forces diff", out["forces"] - ref["forces"])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pt")
        torch.save(model, path)
        loaded = torch.load(path, weights_only=False)
    out = loaded(batch.to_dict(), compute_force=True)
    show_small("whole-model energy diff", out["energy"] - ref["energy"])
    show("whole-model forces", out["forces"])


@variant("compile")
def run_compile():
    """torch.compile of a MACE model (e3nn 0.6's Activation does not script, so MACE's
    torch.jit.script deployment path fails in PyTorch too): the compiled model's energies and
    forces (autograd.grad inside forward) against the eager ones."""
    torch.manual_seed(7)
    rng = np.random.default_rng(7)
    z_table = tools.AtomicNumberTable([1, 6, 7, 8])
    r_max = 4.5
    ds = dataset(molecules(rng, copies=1), z_table, r_max)
    batch = next(iter(torch_geometric.dataloader.DataLoader(ds, batch_size=5)))
    model = build(modules.MACE, z_table, r_max, 3.0, correlation=2)
    ref = model(batch.to_dict(), compute_force=True)
    compiled = torch.compile(model, backend=os.environ.get("MACE_COMPILE_BACKEND", "eager"))
    out = compiled(batch.to_dict(), compute_force=True)
    show("compile energy", out["energy"])
    show_small("compile energy diff", out["energy"] - ref["energy"])
    show_small("compile forces diff", out["forces"] - ref["forces"])


def main(argv):
    names = DEFAULT if not argv else list(VARIANTS) if argv == ["all"] else argv
    for name in names:
        print(f"== {name}")
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
