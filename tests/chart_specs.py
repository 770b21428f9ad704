"""Reading the app's Vega-Lite charts in tests: their layers, by name, and their data."""

from __future__ import annotations

from typing import Any

__all__ = ["colour_of", "layer", "layers", "rows"]


def layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """``spec`` and every layer under it, depth first."""
    return [spec] + [inner for part in spec.get("layer", ()) for inner in layers(part)]


def layer(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """The one layer of ``spec`` named ``name``."""
    [found] = [part for part in layers(spec) if part.get("name") == name]
    return found


def rows(spec: dict[str, Any], name: str | None = None) -> list[dict[str, Any]]:
    """The data a layer draws (its own, else the chart's), or the chart's when ``name`` is None."""
    own = spec if name is None else layer(spec, name)
    return list((own["data"] if "data" in own else spec["data"])["values"])


def colour_of(encoding: dict[str, Any], value: object) -> str:
    """The colour an encoding's scale gives ``value`` (a nominal scale: domain -> range)."""
    scale = encoding["color"]["scale"]
    return str(dict(zip(scale["domain"], scale["range"], strict=True))[value])
