"""torchdata 0.11 (StatefulDataLoader and torchdata.nodes) driven the same way under PyTorch
and under jtorch; every batch is printed so the two runs can be diffed line by line.

    python scripts/real_drivers/torchdata_pipelines.py [case ...]            # real PyTorch
    python -m jtorch scripts/real_drivers/torchdata_pipelines.py [case ...]  # jtorch

Shuffled orders come from each framework's own generator (jtorch's RNG differs from
PyTorch's), so a shuffled case prints what does not depend on the stream: each epoch's sorted
contents, and whether the batches after a mid-epoch ``state_dict`` resume equal the
uninterrupted run's. Everything else (sequential samplers, iterable datasets, nodes) prints the
batches themselves. Worker processes use ``spawn`` (JAX cannot run in a forked child).
"""

import sys

import torch
from torch.utils.data import Dataset, IterableDataset
from torchdata import nodes
from torchdata.stateful_dataloader import StatefulDataLoader

N = 23


class Squares(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), float(i * i)]), "y": i % 3, "name": f"s{i}"}


class Counter(IterableDataset):
    """An iterable dataset sharded across workers; its iterator is stateful (torchdata's
    protocol) so a resume need not replay it."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        return _CounterIter(range(wid, self.n, nw))


class _CounterIter:
    def __init__(self, items):
        self.items, self.pos = list(items), 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.pos >= len(self.items):
            raise StopIteration
        self.pos += 1
        return torch.tensor(self.items[self.pos - 1], dtype=torch.int64)

    def state_dict(self):
        return {"pos": self.pos}

    def load_state_dict(self, sd):
        self.pos = sd["pos"]


class Plain(IterableDataset):
    """Not stateful: a resume fast-forwards it."""

    def __iter__(self):
        return iter(range(N))


def pairs_collate(batch):
    return [(b["name"], int(b["x"][1].item())) for b in batch]


def show(batch):
    if isinstance(batch, torch.Tensor):
        return f"{tuple(batch.shape)} {batch.dtype} {batch.tolist()}"
    if isinstance(batch, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in batch.items()) + "}"
    if isinstance(batch, (list, tuple)) and batch and isinstance(batch[0], torch.Tensor):
        return "[" + ", ".join(show(b) for b in batch) + "]"
    return repr(batch)


def keys(batch):
    """The sample ids of a batch (for shuffled cases)."""
    if isinstance(batch, dict):
        return [int(v) for v in batch["x"][:, 0].tolist()]
    return [name for name, _ in batch]


def loader(ds, workers, **kw):
    if workers:
        kw.update(num_workers=workers, multiprocessing_context="spawn")
    return StatefulDataLoader(ds, **kw)


def resume(make, stop, printer):
    """Iterates ``make()`` to the end, and again stopping after ``stop`` batches: a state_dict
    there, loaded into a fresh loader, must yield the uninterrupted run's remaining batches."""
    full = [printer(b) for b in make()]
    first = make()
    it = iter(first)
    head = [printer(next(it)) for _ in range(stop)]
    sd = first.state_dict()
    del it, first
    second = make()
    second.load_state_dict(sd)
    tail = [printer(b) for b in second]
    return full, head, tail


def case_map(workers):
    kws = ({"batch_size": 4}, {"batch_size": 5, "drop_last": True}, {"batch_size": None})
    for kw in kws if not workers else kws[1:2]:  # spawned workers are slow to start
        full, head, tail = resume(lambda kw=kw: loader(Squares(), workers, **kw), 3, show)
        print(f"map w={workers} {kw}: {len(full)} batches")
        for b in full:
            print("  ", b)
        print("  resume after 3:", head + tail == full, len(tail))
    full, head, tail = resume(
        lambda: loader(Squares(), workers, batch_size=6, collate_fn=pairs_collate), 2, repr)
    print(f"map w={workers} custom collate:", *full, sep="\n   ")
    print("  resume after 2:", head + tail == full)


def case_shuffle(workers):
    def make():
        g = torch.Generator()
        g.manual_seed(1234)
        return loader(Squares(), workers, batch_size=4, shuffle=True, generator=g)
    full, head, tail = resume(make, 2, keys)
    flat = sorted(i for b in full for i in b)
    print(f"shuffle w={workers}: sizes {[len(b) for b in full]}, epoch is a permutation:",
          flat == list(range(N)))
    print("  resume after 2 equals uninterrupted:", head + tail == full)
    dl = make()
    e1 = [keys(b) for b in dl]
    e2 = [keys(b) for b in dl]
    print("  epoch 2 is another permutation:", sorted(sum(e2, [])) == list(range(N)), e1 != e2)


def case_iterable(workers):
    for ds, name in ((Counter(N), "stateful"), (Plain(), "plain")):
        for kw in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True})[:2 - bool(workers)]:
            full, head, tail = resume(lambda ds=ds, kw=kw: loader(ds, workers, **kw), 3, show)
            print(f"iterable {name} w={workers} {kw}:", *full, sep="\n   ")
            print("  resume after 3:", head + tail == full, len(tail))


def case_nodes():
    def pipeline(parallel):
        src = nodes.IterableWrapper(range(30))
        mapped = (nodes.ParallelMapper(src, map_fn=lambda x: x * x, num_workers=2,
                                       method="thread", in_order=True) if parallel
                  else nodes.Mapper(src, lambda x: x * x))
        batched = nodes.Batcher(mapped, batch_size=4, drop_last=False)
        tensors = nodes.Mapper(batched, lambda b: torch.tensor(b).sum().item())
        return nodes.Loader(nodes.Prefetcher(tensors, prefetch_factor=2))

    for parallel in (False, True):
        ld = pipeline(parallel)
        full = list(ld)
        ld2 = pipeline(parallel)
        it = iter(ld2)
        head = [next(it) for _ in range(3)]
        sd = ld2.state_dict()
        ld3 = pipeline(parallel)
        ld3.load_state_dict(sd)
        tail = list(ld3)
        print(f"nodes parallel={parallel}:", full, "resume:", head + tail == full)

    sampler_ld = nodes.Loader(nodes.Batcher(nodes.SamplerWrapper(
        torch.utils.data.SequentialSampler(range(10))), batch_size=3))
    print("nodes SamplerWrapper:", list(sampler_ld), list(sampler_ld))

    def weighted():
        srcs = {"a": nodes.IterableWrapper(range(100)),
                "b": nodes.IterableWrapper(range(1000, 1100))}
        return nodes.Loader(nodes.MultiNodeWeightedSampler(srcs, {"a": 0.3, "b": 0.7}, seed=7))
    ld = weighted()
    it = iter(ld)
    head = [next(it) for _ in range(10)]
    sd = ld.state_dict()
    rest = [next(it) for _ in range(10)]
    ld2 = weighted()
    ld2.load_state_dict(sd)
    it2 = iter(ld2)
    rest2 = [next(it2) for _ in range(10)]
    from_a = [x for x in head + rest if x < 1000]
    print("nodes MultiNodeWeightedSampler: in order per source:", sorted(from_a) == from_a,
          "resume:", rest == rest2)


CASES = {
    "map0": lambda: case_map(0), "map2": lambda: case_map(2),
    "shuffle0": lambda: case_shuffle(0), "shuffle2": lambda: case_shuffle(2),
    "iter0": lambda: case_iterable(0), "iter2": lambda: case_iterable(2),
    "nodes": case_nodes,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(CASES):
        print(f"== {name}", flush=True)
        CASES[name]()
