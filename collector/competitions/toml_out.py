"""A tiny TOML writer for competition definitions (Python reads TOML, but cannot write it).

Handles what definitions need: strings, ints, bools, lists of scalars, nested tables and
arrays of tables. Keys are written in the order given.
"""

from __future__ import annotations

import json
from typing import Any


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON strings are valid TOML basic strings
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else json.dumps(key)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def dumps(data: dict[str, Any], prefix: str = "") -> str:
    """Serialise ``data`` (scalars first, then tables, then arrays of tables)."""
    lines: list[str] = []
    for key, value in data.items():
        if value is None or isinstance(value, dict) or _is_table_array(value):
            continue
        lines.append(f"{_key(key)} = {_scalar(value)}")
    for key, value in data.items():
        name = f"{prefix}{_key(key)}"
        if isinstance(value, dict):
            lines += ["", f"[{name}]", dumps(value, prefix=f"{name}.").rstrip("\n")]
        elif _is_table_array(value):
            for item in value:
                lines += ["", f"[[{name}]]", dumps(item, prefix=f"{name}.").rstrip("\n")]
    return "\n".join(line for line in lines if line is not None) + "\n"
