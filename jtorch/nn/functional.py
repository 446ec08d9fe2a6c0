"""torch.nn.functional. The op table fills this module at import (ops registered with
``namespace="nn.functional"`` and plain functions exported there)."""
