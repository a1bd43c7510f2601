"""hipkit's math by op family, one module each, in layers (each imports only those before it):
_base (the helpers every family shares), elementwise (the op table's functions, the operators),
reduce, scan_sort, linalg (matmul and the products made of it), indexing (take, nonzero, where,
advanced indexing and assignment, put). Each installs its methods and operators on hipkit.ndarray
once its functions are defined; hipkit.ops gathers the public functions under one name.

Nothing is imported here, so that importing one family loads only the families below it."""
