"""``torch.utils.data._utils.fetch``: the fetchers that turn an index (or a list of indices)
into a collated batch, for map-style and iterable-style datasets (``fetcher.fetch(index)``)."""

from ..dataloader import _IterFetcher as _IterableDatasetFetcher, _MapFetcher as _MapDatasetFetcher

__all__ = ["_IterableDatasetFetcher", "_MapDatasetFetcher"]
