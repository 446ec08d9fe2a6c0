"""MNIST's 784-256-128-10 MLP trained with DistributedDataParallel, one process per rank.

Run:  jtorchrun --nproc_per_node 2 examples/ddp_mnist.py [--epochs 1] [--data DIR]
      (or python -m jtorch.distributed.run --nproc_per_node 2 examples/ddp_mnist.py)

Written as PyTorch's DDP tutorials write it: init_process_group first (jtorch needs it before
the first tensor is made), a DistributedSampler gives each rank its share of every epoch,
DDP averages the gradients, and only rank 0 shows a progress bar and prints. The data is read
as in examples/mnist_mlp.py (--data, $JTORCH_DATA, ../shared/data/mnist, ./data); offline,
put the four MNIST files there.
"""

import argparse

from _common import data_root, progress
from mnist_mlp import MLP, evaluate

import jtorch as torch
import jtorch.distributed as dist
from jtorch import nn
from jtorch.nn.parallel import DistributedDataParallel as DDP
from jtorch.utils.data import DataLoader, DistributedSampler
from jtorch.vision import datasets, transforms


def main(epochs=1, root=None, batch_size=64, max_steps=None):
    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    root = root or data_root()
    train = datasets.MNIST(root, train=True, transform=tf, download=rank == 0)
    dist.barrier()  # rank 0 has the files before the others read them
    test = datasets.MNIST(root, train=False, transform=tf)
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=sampler)
    test_loader = DataLoader(test, batch_size=1000)

    model = DDP(MLP())  # rank 0's initial weights are copied to every rank
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        batches = progress(train_loader, f"epoch {epoch}") if rank == 0 else train_loader
        total, n = 0.0, 0
        for step, (x, y) in enumerate(batches):
            if max_steps is not None and step >= max_steps:
                break
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            n += len(x)
        test_loss, acc = evaluate(model, test_loader, loss_fn)
        if rank == 0:
            print(f"epoch {epoch:2d}  train loss (rank 0's share) {total / max(n, 1):.4f}  "
                  f"test loss {test_loss:.4f}  test accuracy {100 * acc:.2f}%  "
                  f"({world} processes)")
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--data", default=None)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-steps", type=int, default=None,
                    help="stop each epoch after this many steps (a quick check)")
    a = ap.parse_args()
    main(a.epochs, a.data, a.batch_size, a.max_steps)
