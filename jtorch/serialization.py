"""torch.save / torch.load in PyTorch's checkpoint format."""


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    raise NotImplementedError("jtorch does not implement torch.save yet")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kw):
    raise NotImplementedError("jtorch does not implement torch.load yet")
