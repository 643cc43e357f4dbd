"""The conflict graph of an explained refusal, drawn with networkx.

Kernel config: ops, DFBs and the shared settings (destination width, each DFB's unpack
mode); an edge per operand read and per requirement, the minimal conflicting set in red.
NZ layout: tensors and the ops reading or writing them, the refused op in red.
`.dot` is written as text here (no pydot); `.png` needs matplotlib (`tile-planner[viz]`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import networkx as nx

from planner import extras, request_codes
from planner.contract import JsonObject
from planner.errors import RequestError
from planner.explain.conflicts import Explained, Subject
from planner.outputs import open_output, write_output

_HIGHLIGHT = {"color": "red", "penwidth": "2.5", "fontcolor": "red"}


def _setting_node(record: JsonObject) -> tuple[str, str]:
    """The shared setting a requirement constrains: a DFB's unpack mode, or the DST width."""
    if record.get("dfb") is not None:
        return f"unpack:{record['dfb']}", f"unpack mode\nDFB {record['dfb']}"
    if record["kind"] == "destination":
        return "setting:dst_width", "DST width"
    return f"setting:{record['kind']}", record["kind"]


def _kernel_graph(subject: Subject) -> Any:
    graph = nx.MultiDiGraph(name=subject.function or "kernel")
    for dfb in subject.request.get("dfbs", []):
        graph.add_node(f"dfb:{dfb['index']}", label=f"DFB {dfb['index']}\n{dfb['dtype']}", shape="cylinder")
    for op in subject.request.get("ops", []):
        graph.add_node(f"op:{op['id']}", label=f"{op['id']}\n{op['op']}", shape="box")
        for position, operand in enumerate(op.get("operands", [])):
            if "dfb" in operand:
                graph.add_edge(f"dfb:{operand['dfb']}", f"op:{op['id']}", label=f"operand {position}")
            elif "value" in operand:
                graph.add_edge(f"op:{operand['value']}", f"op:{op['id']}", label=f"operand {position} (DST)")
    conflict = subject.response.get("conflict") or {}
    minimal = set(conflict.get("minimal_conflict") or [])
    for record in conflict.get("requirements") or []:
        setting, label = _setting_node(record)
        graph.add_node(setting, label=label, shape="diamond")
        source = f"op:{record['op']}" if record.get("op") else "setting:policy"
        graph.add_node(source, **({} if record.get("op") else {"label": "policy", "shape": "note"}))
        style = _HIGHLIGHT if record["id"] in minimal else {}
        allows = " | ".join(record.get("allows") or [])
        graph.add_edge(source, setting, label=f"{record['id']}: {allows}", **style)
    if f"op:{conflict.get('op')}" in graph:
        graph.nodes[f"op:{conflict['op']}"].update(_HIGHLIGHT)
    return graph


def _layout_graph(subject: Subject) -> Any:
    graph = nx.MultiDiGraph(name=subject.function or "program")
    for tensor in subject.request.get("tensors", []):
        graph.add_node(
            f"tensor:{tensor['name']}",
            label=f"{tensor['name']}\n{tensor['dtype']} {tensor['layout']}",
            shape="cylinder",
        )
    for op in subject.request.get("ops", []):
        graph.add_node(f"op:{op['id']}", label=f"{op['id']}\n{op['op']}", shape="box")
        for name in [op.get("source"), *op.get("args", [])]:
            if name:
                graph.add_edge(f"tensor:{name}", f"op:{op['id']}", label="reads")
        if op.get("dest"):
            graph.add_edge(f"op:{op['id']}", f"tensor:{op['dest']}", label="writes")
    for diagnostic in subject.response.get("diagnostics", []):
        if diagnostic.get("op") and f"op:{diagnostic['op']}" in graph:
            graph.nodes[f"op:{diagnostic['op']}"].update(_HIGHLIGHT, xlabel=diagnostic["code"])
    return graph


_BUILDERS = {"kernelcfg.resolve": _kernel_graph, "layout.plan": _layout_graph}


def conflict_graph(found: Explained) -> Any:
    """The graph of the first refusal (or of the first plan when nothing was refused)."""
    subject = found.explanation or found.subjects[0]
    builder = _BUILDERS.get(subject.method)
    if builder is None:
        raise RequestError(request_codes.NOT_EXPLAINABLE, f"{subject.method} answers have no graph to draw")
    return builder(subject)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attributes(attrs: dict[str, Any]) -> str:
    return ", ".join(f"{key}={_quote(str(attrs[key]))}" for key in sorted(attrs))


def to_dot(graph: Any) -> str:
    """Graphviz text, nodes and edges sorted so the same graph prints byte-identically."""
    lines = [f"digraph {_quote(graph.name)} {{", "  rankdir=LR;"]
    lines += [f"  {_quote(node)} [{_attributes(graph.nodes[node])}];" for node in sorted(graph.nodes)]
    edges = sorted((u, v, _attributes(data)) for u, v, data in graph.edges(data=True))
    lines += [f"  {_quote(u)} -> {_quote(v)} [{attrs}];" for u, v, attrs in edges]
    return "\n".join([*lines, "}"]) + "\n"


_COLUMN_BY_PREFIX = {"dfb": 0, "tensor": 0, "op": 1, "setting": 2, "unpack": 2}


def _draw_png(graph: Any, out: BinaryIO) -> None:
    """Columns read left to right: buffers (or tensors), ops, the shared settings they constrain."""
    plt = extras.pyplot()
    for node in graph.nodes:
        graph.nodes[node]["column"] = _COLUMN_BY_PREFIX.get(str(node).split(":", 1)[0], 1)
    positions = nx.multipartite_layout(graph, subset_key="column")
    figure = plt.figure(figsize=(12, 8))
    colors = [graph.nodes[n].get("color", "lightgray") for n in graph.nodes]
    edge_colors = [data.get("color", "gray") for _, _, data in graph.edges(data=True)]
    labels = {n: graph.nodes[n].get("label", n) for n in graph.nodes}
    nx.draw_networkx_nodes(graph, positions, node_color=colors, node_size=2200, alpha=0.6)
    nx.draw_networkx_edges(graph, positions, edge_color=edge_colors, node_size=2200, arrows=True)
    nx.draw_networkx_labels(graph, positions, labels=labels, font_size=8)
    edges = graph.edges(data=True)
    edge_labels = {(u, v): str(data.get("label", "")).split(":", 1)[0] for u, v, data in edges}
    nx.draw_networkx_edge_labels(graph, positions, edge_labels=edge_labels, font_size=7)
    plt.axis("off")
    figure.savefig(out, format="png")
    plt.close(figure)


def draw(found: Explained, path: Path, option: str = "--graph") -> None:
    """Write the conflict graph: `.dot` text or `.png` (by the file's extension), through the safe writer."""
    graph = conflict_graph(found)
    if path.suffix.lower() == ".png":
        with open_output(str(path), option) as out:
            _draw_png(graph, out)
    elif path.suffix.lower() == ".dot":
        write_output(str(path), to_dot(graph), option)
    else:
        raise RequestError(
            request_codes.INVALID_PARAMS, f"--graph writes .dot or .png files, got {path.name!r}"
        )
