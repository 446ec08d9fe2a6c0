"""Functions PyTorch still has only to raise an error naming their replacement: ``torch.solve``,
``lstsq``, ``eig``, ``symeig``, ``matrix_rank`` (removed in 1.9; torch/_linalg_utils.py) and the
Tensor methods of the first four. Reading one of these names gives a function that raises
PyTorch's RuntimeError, as reading it in PyTorch does (the namespaces' fallbacks ask here before
answering NotImplementedError)."""

from __future__ import annotations

_GONE = "This function was deprecated since version 1.9 and is now removed. "

_SOLVE = (
    _GONE + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
    "`torch.linalg.solve` has its arguments reversed and does not return the LU factorization."
    "\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
    "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\n"
    "X = torch.linalg.solve(A, B)")
_LSTSQ = (
    _GONE + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
    "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
    "the returned tuple (although it returns other information about the problem).\n\n"
    "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
    "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
    "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
    "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
    "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
    "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_SYMEIG = (
    _GONE + "The default behavior has changed from using the upper triangular portion of the "
    "matrix by default to using the lower triangular portion.\n\n"
    "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
    "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
_EIG = (
    _GONE + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
    "than real tensors mimicking complex tensors.\n\n"
    "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n"
    "and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
    "L_complex, V_complex = torch.linalg.eig(A)")
_MATRIX_RANK = (
    "This function was deprecated since version 1.9 and is now removed.\n"
    "Please use the `torch.linalg.matrix_rank` function instead. "
    "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")

REMOVED = {
    "torch.solve": _SOLVE, "torch.lstsq": _LSTSQ, "torch.symeig": _SYMEIG, "torch.eig": _EIG,
    "torch.matrix_rank": _MATRIX_RANK,
    "torch.Tensor.solve": _SOLVE, "torch.Tensor.lstsq": _LSTSQ,
    "torch.Tensor.symeig": _SYMEIG, "torch.Tensor.eig": _EIG,
}
_FUNCTIONS: dict[str, object] = {}


def removed_function(full_name):
    """The function PyTorch keeps under ``full_name`` to raise its removal error, or None."""
    message = REMOVED.get(full_name)
    if message is None:
        return None
    fn = _FUNCTIONS.get(full_name)
    if fn is None:
        def fn(*args, **kwargs):
            raise RuntimeError(message)

        fn.__name__ = fn.__qualname__ = full_name.rsplit(".", 1)[1]
        _FUNCTIONS[full_name] = fn
    return fn
