# hipkit._native is a C extension (bindings/python/native): its names are typed Any here.
from typing import Any

def __getattr__(name: str) -> Any: ...
