"""torch._library: the pieces of custom operators below torch.library (infer_schema; _schema
parses the schema strings torch.library takes, a jtorch helper)."""

from . import infer_schema

__all__ = ["infer_schema"]
