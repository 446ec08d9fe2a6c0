"""Driver of PyTorch Geometric (docs/real-programs.md): the ``torch_geometric`` package
(2.8.0.post1, without its optional compiled extensions pyg-lib, torch-scatter and
torch-sparse), installed and used unchanged, builds small random graphs in memory (no download)
and trains and evaluates its layers for a few steps, printing every loss and checksums of the
outputs and gradients at full precision.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``utils``: ``torch_geometric.utils`` on a random graph: self loops, degree, to_undirected,
  coalesce, softmax and scatter (sum, mean, max, min) by group, segment and softmax by a
  pointer into sorted edges (``torch.segment_reduce``), to_dense_adj, to_dense_batch,
  dropout_edge, subgraph, k_hop_subgraph, get_laplacian, one_hot, negative_sampling, with the
  gradients of softmax/scatter/to_dense_adj.
- ``gcn``: a two-layer GCNConv node classifier on a Cora-like random graph (Adam, masked
  cross-entropy), then GCNConv with edge weights, ``cached`` and ``normalize=False``.
- ``gat``: GATConv (two heads, attention dropout) and a one-head output layer; the attention
  weights returned by ``return_attention_weights``; GATv2Conv and TransformerConv with edge
  features.
- ``sage``: SAGEConv with mean, max and a list of aggregations, ``normalize=True``; GraphConv.
- ``gin``: GINConv with an MLP (Linear, BatchNorm1d, ReLU) and GINEConv with edge features.
- ``graph_cls``: graph classification on FakeDataset graphs: a shuffling DataLoader batches
  them (Batch.from_data_list), GraphConv layers, then global_mean_pool / global_add_pool /
  global_max_pool readouts; training and an evaluation pass.
- ``message_passing``: MessagePassing subclasses written here (an edge-feature MLP with
  ``aggr="max"``, a gated sum with ``message``/``update`` and ``propagate`` over a bipartite
  ``size``), trained a few steps.
- ``models``: the basic models (``torch_geometric.nn.models.GCN``, ``GraphSAGE``, ``GIN``,
  ``GAT`` with ``jk``), MLP, GraphNorm/LayerNorm/BatchNorm, aggregations (SoftmaxAggregation,
  MultiAggregation, Set2Set, AttentionalAggregation), TopKPooling and SAGPooling.
- ``more_convs``: ChebConv, APPNP, SGConv, TAGConv, ResGatedGraphConv, GENConv, NNConv,
  RGCNConv, PNAConv, and a graph auto-encoder (GAE) link-prediction step.
- ``transforms``: Compose(NormalizeFeatures, ToUndirected, AddSelfLoops, GCNNorm),
  RandomNodeSplit, RandomLinkSplit; Data.validate, is_undirected, subgraph.
- ``hetero``: a FakeHeteroDataset graph, HeteroConv of lazily initialised SAGEConvs
  (in_channels -1) per edge type, trained a few steps.

    python scripts/shared_rng_run.py pyg_models.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py pyg_models.py [VARIANT ... | all]   # jtorch
"""

import os
import sys
import time
import warnings

import torch
import torch.nn.functional as F

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torch_geometric  # noqa: E402
import torch_geometric.nn as gnn  # noqa: E402
import torch_geometric.transforms as T  # noqa: E402
import torch_geometric.utils as U  # noqa: E402
from torch_geometric.data import Data  # noqa: E402
from torch_geometric.datasets import FakeDataset, FakeHeteroDataset  # noqa: E402
from torch_geometric.loader import DataLoader  # noqa: E402

warnings.filterwarnings("ignore")

VARIANTS = {}
N, F_IN, C = 40, 8, 3     # nodes, features, classes of the node-classification graph


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    """Sums that do not cancel (a gradient of softmax cross-entropy sums to zero over the
    classes, so its plain sum is rounding noise): of the positive and of the negative parts,
    each weighted by 1 + (i mod 7) / 7 over the flat index i (so a permutation shows), and the
    largest magnitude."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1 + (torch.arange(t.numel()) % 7).double() / 7
    return (f"pos {(t.clamp(min=0) * w).sum().item()!r} "
            f"neg {(t.clamp(max=0) * w).sum().item()!r} absmax {t.abs().max().item()!r}")


def show(name, t):
    if t.dtype in (torch.int64, torch.int32, torch.bool):
        print(f"  {name} {list(t.shape)} {t.tolist()}")
    else:
        print(f"  {name} {list(t.shape)} {checksum(t)}")


def grads(model):
    """Each parameter's gradient checksum; a gradient that is zero but for float32 rounding
    (a bias feeding a BatchNorm, an attention key's bias under softmax) only says so."""
    for name, p in model.named_parameters():
        if p.grad is None:
            continue
        if p.grad.abs().max() < 1e-6:
            print(f"    grad {name} zero up to rounding")
        else:
            print(f"    grad {name} {checksum(p.grad)}")


def cora_like(num_edges=120):
    """A random graph: features, undirected edges, labels and train/test masks."""
    x = torch.randn(N, F_IN)
    edge_index = U.to_undirected(torch.randint(N, (2, num_edges)))
    edge_index, _ = U.remove_self_loops(edge_index)
    y = torch.randint(C, (N,))
    train_mask = torch.zeros(N, dtype=torch.bool)
    train_mask[: N // 2] = True
    return Data(x=x, edge_index=edge_index, y=y, train_mask=train_mask,
                test_mask=~train_mask, edge_attr=torch.rand(edge_index.size(1), 3),
                edge_weight=torch.rand(edge_index.size(1)))


def train_nodes(name, model, data, forward, steps=5, lr=0.01):
    """``steps`` Adam steps of masked cross-entropy; prints each loss, the last gradients,
    then the evaluation logits and accuracy."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=5e-4)
    for step in range(steps):
        model.train()
        opt.zero_grad()
        out = forward(model, data)
        loss = F.cross_entropy(out[data.train_mask], data.y[data.train_mask])
        loss.backward()
        if step == steps - 1:
            grads(model)
        opt.step()
        print(f"  {name} step {step} loss {loss.item()!r}")
    model.eval()
    with torch.no_grad():
        out = forward(model, data)
    acc = (out.argmax(-1)[data.test_mask] == data.y[data.test_mask]).float().mean()
    print(f"  {name} eval logits {checksum(out)} acc {acc.item()!r}")


class TwoLayer(torch.nn.Module):
    def __init__(self, conv1, conv2, dropout=0.5):
        super().__init__()
        self.conv1, self.conv2, self.dropout = conv1, conv2, dropout

    def forward(self, x, edge_index, **kw):
        x = F.dropout(x, self.dropout, self.training)
        x = F.elu(self.conv1(x, edge_index, **kw))
        x = F.dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index, **kw)


@variant("utils")
def _():
    data = cora_like()
    ei = data.edge_index
    show("edge_index", ei)
    loops, _ = U.add_self_loops(ei, num_nodes=N)
    show("add_self_loops", loops)
    print(f"  contains_self_loops {U.contains_self_loops(loops)} is_undirected "
          f"{U.is_undirected(ei)} has_isolated_nodes {U.contains_isolated_nodes(ei, N)}")
    show("degree", U.degree(ei[0], N))
    directed = torch.randint(N, (2, 30))
    show("coalesce", U.coalesce(torch.cat([directed, directed[:, :5]], 1)))
    show("to_undirected", U.to_undirected(directed))
    src = torch.randn(ei.size(1), 4, requires_grad=True)
    out = []
    for reduce in ("sum", "mean", "max", "min"):
        r = U.scatter(src, ei[1], 0, N, reduce=reduce)
        show(f"scatter_{reduce}", r)
        out.append(r)
    sm = U.softmax(src, ei[1], num_nodes=N)
    show("softmax", sm)
    dense = U.to_dense_adj(ei, edge_attr=src[:, 0], max_num_nodes=N)
    show("to_dense_adj", dense)
    # the same by a pointer into edges sorted by target (torch.segment_reduce)
    order = ei[1].argsort(stable=True)
    ptr = U.cumsum(U.degree(ei[1], N, torch.long))
    for reduce in ("sum", "mean", "max", "min"):
        r = U.segment(src[order], ptr, reduce=reduce)
        show(f"segment_{reduce}", r)
        out.append(r)
    sm_ptr = U.softmax(src[order], ptr=ptr)
    show("softmax_ptr", sm_ptr)
    loss = sum(o.pow(2).sum() for o in out) + (sm * src).sum() + dense.pow(2).sum() + \
        (sm_ptr * src[order]).sum()
    loss.backward()
    show("grad src", src.grad)
    batch = torch.tensor([0] * 5 + [1] * 3 + [2] * 7)
    dense_x, mask = U.to_dense_batch(torch.randn(15, 2), batch)
    show("to_dense_batch", dense_x)
    show("to_dense_batch mask", mask)
    kept, edge_mask = U.dropout_edge(ei, p=0.3, training=True)
    show("dropout_edge", kept)
    sub, _ = U.subgraph(torch.arange(0, N, 2), ei, relabel_nodes=True, num_nodes=N)
    show("subgraph", sub)
    subset, sub_ei, mapping, _ = U.k_hop_subgraph(3, 2, ei, relabel_nodes=True, num_nodes=N)
    show("k_hop subset", subset)
    show("k_hop edge_index", sub_ei)
    lap_ei, lap_w = U.get_laplacian(ei, normalization="sym", num_nodes=N)
    show("laplacian index", lap_ei)
    show("laplacian weight", lap_w)
    show("one_hot", U.one_hot(data.y, C))
    neg = U.negative_sampling(ei, num_nodes=N, num_neg_samples=20)
    show("negative_sampling", neg)


@variant("gcn")
def _():
    data = cora_like()
    model = TwoLayer(gnn.GCNConv(F_IN, 16), gnn.GCNConv(16, C))
    train_nodes("gcn", model, data, lambda m, d: m(d.x, d.edge_index))
    model = TwoLayer(gnn.GCNConv(F_IN, 16, cached=True), gnn.GCNConv(16, C, cached=True), 0.0)
    train_nodes("gcn_weighted", model, data,
                lambda m, d: m(d.x, d.edge_index, edge_weight=d.edge_weight), steps=3)
    conv = gnn.GCNConv(F_IN, 4, normalize=False, bias=False)
    show("gcn_unnormalized", conv(data.x, data.edge_index, data.edge_weight))


@variant("gat")
def _():
    data = cora_like()
    model = TwoLayer(gnn.GATConv(F_IN, 8, heads=2, dropout=0.3),
                     gnn.GATConv(16, C, heads=1, concat=False, dropout=0.3))
    train_nodes("gat", model, data, lambda m, d: m(d.x, d.edge_index))
    out, (att_ei, alpha) = model.conv1(data.x, data.edge_index, return_attention_weights=True)
    show("gat attention edge_index", att_ei)
    show("gat attention", alpha)
    model = TwoLayer(gnn.GATv2Conv(F_IN, 8, heads=2, edge_dim=3),
                     gnn.GATv2Conv(16, C, heads=1, edge_dim=3), 0.2)
    train_nodes("gatv2", model, data, lambda m, d: m(d.x, d.edge_index, edge_attr=d.edge_attr),
                steps=3)
    model = TwoLayer(gnn.TransformerConv(F_IN, 8, heads=2, edge_dim=3),
                     gnn.TransformerConv(16, C, heads=1, edge_dim=3), 0.2)
    train_nodes("transformer", model, data,
                lambda m, d: m(d.x, d.edge_index, edge_attr=d.edge_attr), steps=3)


@variant("sage")
def _():
    data = cora_like()
    for aggr in ("mean", "max", ["mean", "max", "sum"]):
        model = TwoLayer(gnn.SAGEConv(F_IN, 16, aggr=aggr, normalize=True),
                         gnn.SAGEConv(16, C, aggr=aggr))
        name = "sage_" + (aggr if isinstance(aggr, str) else "multi")
        train_nodes(name, model, data, lambda m, d: m(d.x, d.edge_index), steps=3)
    model = TwoLayer(gnn.GraphConv(F_IN, 16, aggr="add"), gnn.GraphConv(16, C, aggr="mean"))
    train_nodes("graphconv", model, data,
                lambda m, d: m(d.x, d.edge_index, edge_weight=d.edge_weight), steps=3)


def mlp(i, o):
    return torch.nn.Sequential(torch.nn.Linear(i, o), torch.nn.BatchNorm1d(o),
                               torch.nn.ReLU(), torch.nn.Linear(o, o))


@variant("gin")
def _():
    data = cora_like()
    model = TwoLayer(gnn.GINConv(mlp(F_IN, 16), train_eps=True), gnn.GINConv(mlp(16, C)))
    train_nodes("gin", model, data, lambda m, d: m(d.x, d.edge_index))
    model = TwoLayer(gnn.GINEConv(mlp(F_IN, 16), edge_dim=3),
                     gnn.GINEConv(mlp(16, C), edge_dim=3))
    train_nodes("gine", model, data, lambda m, d: m(d.x, d.edge_index, edge_attr=d.edge_attr),
                steps=3)


class GraphNet(torch.nn.Module):
    def __init__(self, cin, hidden, classes, pool):
        super().__init__()
        self.conv1 = gnn.GraphConv(cin, hidden)
        self.conv2 = gnn.GraphConv(hidden, hidden)
        self.lin = torch.nn.Linear(hidden, classes)
        self.pool = pool

    def forward(self, x, edge_index, batch):
        x = self.conv1(x, edge_index).relu()
        x = self.conv2(x, edge_index).relu()
        x = self.pool(x, batch)
        return self.lin(F.dropout(x, 0.5, self.training))


@variant("graph_cls")
def _():
    dataset = FakeDataset(num_graphs=12, avg_num_nodes=10, avg_degree=3, num_channels=5,
                          num_classes=2, task="graph")
    print(f"  dataset {dataset} nodes {[d.num_nodes for d in dataset]} "
          f"labels {[d.y.item() for d in dataset]}")
    for pool in (gnn.global_mean_pool, gnn.global_add_pool, gnn.global_max_pool):
        model = GraphNet(5, 16, 2, pool)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        loader = DataLoader(dataset, batch_size=4, shuffle=True)
        for epoch in range(2):
            model.train()
            for i, batch in enumerate(loader):
                opt.zero_grad()
                out = model(batch.x, batch.edge_index, batch.batch)
                loss = F.cross_entropy(out, batch.y)
                loss.backward()
                opt.step()
                print(f"  {pool.__name__} epoch {epoch} batch {i} graphs {batch.num_graphs} "
                      f"nodes {batch.num_nodes} ptr {batch.ptr.tolist()} loss {loss.item()!r}")
        grads(model)
        model.eval()
        with torch.no_grad():
            batch = next(iter(DataLoader(dataset, batch_size=12)))
            out = model(batch.x, batch.edge_index, batch.batch)
        print(f"  {pool.__name__} eval {checksum(out)} pred {out.argmax(-1).tolist()}")


class EdgeMLPConv(gnn.MessagePassing):
    """h_i = max_j MLP([x_i, x_j - x_i, e_ij])."""

    def __init__(self, cin, cout, edge_dim):
        super().__init__(aggr="max")
        self.mlp = torch.nn.Sequential(torch.nn.Linear(2 * cin + edge_dim, cout),
                                       torch.nn.ReLU(), torch.nn.Linear(cout, cout))

    def forward(self, x, edge_index, edge_attr):
        return self.propagate(edge_index, x=x, edge_attr=edge_attr)

    def message(self, x_i, x_j, edge_attr):
        return self.mlp(torch.cat([x_i, x_j - x_i, edge_attr], dim=-1))


class GatedConv(gnn.MessagePassing):
    """A gated sum over a bipartite graph: m_ij = sigmoid(a . [x_i, x_j]) * W x_j, then
    h_i = m_i + U x_i in ``update``."""

    def __init__(self, cin, cout):
        super().__init__(aggr="add", flow="source_to_target")
        self.w = torch.nn.Linear(cin, cout, bias=False)
        self.u = torch.nn.Linear(cin, cout)
        self.att = torch.nn.Parameter(torch.randn(2 * cin) * 0.1)

    def forward(self, x, edge_index, size):
        return self.propagate(edge_index, x=x, size=size)

    def message(self, x_i, x_j, index, ptr, size_i):
        gate = torch.sigmoid((torch.cat([x_i, x_j], -1) * self.att).sum(-1, keepdim=True))
        alpha = U.softmax(gate, index, ptr, size_i)
        return alpha * self.w(x_j)

    def update(self, aggr_out, x):
        return aggr_out + self.u(x[1])


@variant("message_passing")
def _():
    data = cora_like()
    model = TwoLayer(EdgeMLPConv(F_IN, 16, 3), EdgeMLPConv(16, C, 3), 0.1)
    train_nodes("edge_mlp", model, data,
                lambda m, d: m(d.x, d.edge_index, edge_attr=d.edge_attr), steps=4)
    src, dst = torch.randn(10, 4), torch.randn(6, 4)
    ei = torch.stack([torch.randint(10, (25,)), torch.randint(6, (25,))])
    conv = GatedConv(4, 5)
    opt = torch.optim.SGD(conv.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        out = conv((src, dst), ei, (10, 6))
        loss = out.pow(2).mean()
        loss.backward()
        opt.step()
        print(f"  gated step {step} loss {loss.item()!r}")
    grads(conv)
    print(f"  gated repr {conv}")


@variant("models")
def _():
    data = cora_like()
    for name, model in (
            ("GCN", gnn.models.GCN(F_IN, 16, 3, C, dropout=0.2, norm="batch_norm", bias=False)),
            ("GraphSAGE", gnn.models.GraphSAGE(F_IN, 16, 2, C, jk="cat")),
            ("GIN", gnn.models.GIN(F_IN, 16, 2, C, norm="layer_norm")),
            ("GAT", gnn.models.GAT(F_IN, 8, 2, C, heads=2, jk="max", v2=True))):
        train_nodes(name, model, data, lambda m, d: m(d.x, d.edge_index), steps=3)
    m = gnn.MLP([F_IN, 16, C], dropout=0.1, norm="batch_norm")
    train_nodes("MLP", m, data, lambda m, d: m(d.x), steps=3)
    dataset = FakeDataset(num_graphs=6, avg_num_nodes=8, num_channels=4, num_classes=2,
                          task="graph")
    batch = next(iter(DataLoader(dataset, batch_size=6)))
    x = batch.x.requires_grad_()
    for name, layer in (("GraphNorm", gnn.GraphNorm(4)), ("LayerNorm", gnn.LayerNorm(4)),
                        ("LayerNorm_node", gnn.LayerNorm(4, mode="node")),
                        ("BatchNorm", gnn.BatchNorm(4)), ("InstanceNorm", gnn.InstanceNorm(4)),
                        ("PairNorm", gnn.PairNorm())):
        y = layer(x, batch.batch) if name not in ("BatchNorm",) else layer(x)
        show(name, y)
    aggrs = (("SoftmaxAggregation", gnn.aggr.SoftmaxAggregation(learn=True)),
             ("MultiAggregation", gnn.aggr.MultiAggregation(["mean", "std", "max"])),
             ("PowerMeanAggregation", gnn.aggr.PowerMeanAggregation(learn=True)),
             ("Set2Set", gnn.aggr.Set2Set(4, processing_steps=2)),
             ("AttentionalAggregation", gnn.aggr.AttentionalAggregation(
                 torch.nn.Linear(4, 1), torch.nn.Linear(4, 6))),
             ("SortAggregation", gnn.aggr.SortAggregation(k=3)))
    for name, aggr in aggrs:
        y = aggr(x, batch.batch)
        show(name, y)
        y.pow(2).sum().backward()
        show(f"{name} grad x", x.grad)
        x.grad = None
    for name, pool in (("TopKPooling", gnn.TopKPooling(4, ratio=0.5)),
                       ("SAGPooling", gnn.SAGPooling(4, ratio=0.5))):
        px, pei, _, pbatch, perm, score = pool(x, batch.edge_index, batch=batch.batch)
        show(f"{name} x", px)
        show(f"{name} perm", perm)
        show(f"{name} edge_index", pei)
        show(f"{name} batch", pbatch)
        px.sum().backward()
        show(f"{name} grad x", x.grad)
        x.grad = None


@variant("more_convs")
def _():
    data = cora_like()
    edge_type = torch.randint(3, (data.edge_index.size(1),))
    deg = U.degree(data.edge_index[1], N, dtype=torch.long)
    deg_hist = torch.bincount(deg)
    convs = (
        ("ChebConv", gnn.ChebConv(F_IN, C, K=3), {"edge_weight": data.edge_weight}),
        ("APPNP", torch.nn.Sequential(), None),
        ("SGConv", gnn.SGConv(F_IN, C, K=2), {}),
        ("TAGConv", gnn.TAGConv(F_IN, C, K=2), {}),
        ("ResGatedGraphConv", gnn.ResGatedGraphConv(F_IN, C), {}),
        ("GENConv", gnn.GENConv(F_IN, C, aggr="softmax", learn_t=True, edge_dim=3),
         {"edge_attr": data.edge_attr}),
        ("NNConv", gnn.NNConv(F_IN, C, torch.nn.Linear(3, F_IN * C), aggr="mean"),
         {"edge_attr": data.edge_attr}),
        ("RGCNConv", gnn.RGCNConv(F_IN, C, num_relations=3, num_bases=2),
         {"edge_type": edge_type}),
        ("PNAConv", gnn.PNAConv(F_IN, C, ["mean", "min", "max", "std"],
                                ["identity", "amplification", "attenuation"], deg_hist,
                                edge_dim=3), {"edge_attr": data.edge_attr}),
    )
    for name, conv, kw in convs:
        if name == "APPNP":
            lin = torch.nn.Linear(F_IN, C)
            prop = gnn.APPNP(K=5, alpha=0.1)

            def forward(m, d, lin=lin, prop=prop):
                return prop(lin(d.x), d.edge_index)
            model = lin
        else:
            model = conv

            def forward(m, d, kw=kw):
                return m(d.x, d.edge_index, **kw)
        train_nodes(name, model, data, forward, steps=3)
    gae = gnn.GAE(gnn.models.GCN(F_IN, 16, 2, 8))
    opt = torch.optim.Adam(gae.parameters(), lr=0.01)
    for step in range(3):
        opt.zero_grad()
        z = gae.encode(data.x, data.edge_index)
        loss = gae.recon_loss(z, data.edge_index)
        loss.backward()
        opt.step()
        print(f"  GAE step {step} loss {loss.item()!r}")
    with torch.no_grad():
        z = gae.encode(data.x, data.edge_index)
        neg = U.negative_sampling(data.edge_index, num_nodes=N)
        auc, ap = gae.test(z, data.edge_index, neg)
    print(f"  GAE auc {auc!r} ap {ap!r}")


@variant("transforms")
def _():
    data = cora_like()
    data.edge_index = data.edge_index[:, ::2]      # directed again
    del data.edge_weight, data.edge_attr
    out = T.Compose([T.NormalizeFeatures(), T.ToUndirected(), T.AddSelfLoops(),
                     T.GCNNorm()])(data.clone())
    show("normalized x", out.x)
    show("undirected + loops edge_index", out.edge_index)
    show("gcn_norm edge_weight", out.edge_weight)
    split = T.RandomNodeSplit(num_val=5, num_test=10)(data.clone())
    for name in ("train_mask", "val_mask", "test_mask"):
        show(name, split[name].nonzero().view(-1))
    train, val, test = T.RandomLinkSplit(num_val=0.1, num_test=0.2)(data.clone())
    for name, d in (("train", train), ("val", val), ("test", test)):
        show(f"link {name} edge_label_index", d.edge_label_index)
        show(f"link {name} edge_label", d.edge_label)
    print(f"  data {data} undirected {data.is_undirected()} isolated "
          f"{data.has_isolated_nodes()} validate {data.validate()}")
    sub = data.subgraph(torch.arange(10))
    print(f"  subgraph {sub}")
    show("subgraph edge_index", sub.edge_index)


@variant("hetero")
def _():
    data = FakeHeteroDataset(num_graphs=1, num_node_types=2, num_edge_types=3,
                             avg_num_nodes=12, avg_num_channels=4, num_classes=3)[0]
    print(f"  {data.metadata()}")
    for et in data.edge_types:
        show(f"{et} edge_index", data[et].edge_index)
    conv = gnn.HeteroConv({et: gnn.SAGEConv((-1, -1), 8) for et in data.edge_types},
                          aggr="sum")
    out = conv(data.x_dict, data.edge_index_dict)   # lazy shapes: the first call makes them
    lin = torch.nn.Linear(8, 3)
    params = list(conv.parameters()) + list(lin.parameters())
    opt = torch.optim.Adam(params, lr=0.01)
    for step in range(3):
        opt.zero_grad()
        out = conv(data.x_dict, data.edge_index_dict)
        loss = F.cross_entropy(lin(out["v0"].relu()), data["v0"].y)
        loss.backward()
        opt.step()
        print(f"  hetero step {step} loss {loss.item()!r}")
    for k, v in out.items():
        show(f"hetero out {k}", v)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"torch_geometric {torch_geometric.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
