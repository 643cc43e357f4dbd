"""The xDSL context TT-Lang MLIR is read in: TTL, TTCore and the upstream dialects, others passing through.

TTL's ops are defined one by one as a text names them, the upstream dialects are registered by
name (each imported only when first used), and constructs of dialects this adapter does not
define are read so they print back unchanged, except an undefined `ttl.*` op, which is read so
the resolver can refuse it at its location.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, get_all_dialects
from xdsl.dialects.builtin import UnregisteredAttr, UnregisteredOp
from xdsl.ir import Attribute, Dialect, Operation, TypeAttribute

from planner.adapters.ttlang.dialects.foreign import unregistered_op
from planner.adapters.ttlang.dialects.raw_body import raw_attr
from planner.adapters.ttlang.dialects.ttcore_dialect import TTCore
from planner.adapters.ttlang.dialects.ttl_registry import TTL_ATTRIBUTES, ttl_dialect, ttl_op
from planner.adapters.ttlang.dialects.ttl_unknown import unknown_ttl_op


@dataclass
class TTLangContext(Context):
    """xDSL's context with unregistered constructs allowed, except that an undefined `ttl.*` op
    is an `UnknownTtlOp`, so the resolver can refuse it (section 2) instead of ignoring it, other
    unregistered ops read the custom syntax `foreign` knows, and an attribute or type without a
    definition keeps its body on one line (`raw_body`).

    TTL's ops are loaded one by one, each when the text first names it (`ttl_registry`); TTL
    itself is not a registered dialect here, so xDSL never loads it whole.
    """

    ttl_ops_loaded: set[str] = field(default_factory=set)

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()) -> type[Operation] | None:
        self._load_ttl_op(name)
        if "ttl" in dialect_stack:  # inside a TTL op, `yield` may stand for `ttl.yield`
            self._load_ttl_op(f"ttl.{name}")
        op_type = super().get_optional_op(name, dialect_stack=dialect_stack)
        if op_type is None or not issubclass(op_type, UnregisteredOp):
            return op_type
        return unknown_ttl_op(name) if name.startswith("ttl.") else unregistered_op(name, op_type)

    def _load_ttl_op(self, name: str) -> None:
        """Load TTL's op `name` before xDSL looks it up, unless it is loaded or TTL has none."""
        if name in self.ttl_ops_loaded or not name.startswith("ttl."):
            return
        if (op := ttl_op(name)) is not None:
            self.load_op(op)
            self.ttl_ops_loaded.add(name)

    def get_optional_dialect(self, name: str) -> Dialect | None:
        return ttl_dialect() if name == "ttl" else super().get_optional_dialect(name)

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        attr_type = super().get_optional_attr(name)
        if attr_type is not None and issubclass(attr_type, UnregisteredAttr):
            return raw_attr(name, is_type=False)
        return attr_type

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        type_type = super().get_optional_type(name)
        if type_type is not None and issubclass(type_type, UnregisteredAttr):
            raw_type = raw_attr(name, is_type=True)
            assert issubclass(raw_type, TypeAttribute)
            return raw_type
        return type_type


UPSTREAM_DIALECTS = ("func", "arith", "memref", "scf", "tensor", "cf")


def add_ttlang_dialects(ctx: Context) -> None:
    """The dialects a TT-Lang compute kernel is written in: builtin and TTCore loaded, TTL and the
    upstream ones registered by name, so each is imported only when first used."""
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(TTCore)
    ctx.register_dialect("ttl", ttl_dialect)
    _register_upstream(ctx)


def _register_upstream(ctx: Context) -> None:
    upstream = get_all_dialects()
    for name in UPSTREAM_DIALECTS:
        ctx.register_dialect(name, upstream[name])
    ctx.register_dialect("affine", _affine_dialect)


def _affine_dialect() -> Dialect:
    """Our `affine` (xDSL's, with `affine.if` in custom syntax), imported on first use as xDSL's
    dialects are: it imports `memref`, which a kernel not using either never loads."""
    from planner.adapters.ttlang.dialects.affine_if import affine_dialect

    return affine_dialect()


def ttlang_context() -> Context:
    """The dialects a TT-Lang compute kernel is written in, other dialects passing through.

    A fresh context for every input: xDSL's context remembers each unregistered op name it
    meets, so one shared context would make a file's reading depend on the files read before.
    """
    ctx = TTLangContext(allow_unregistered=True)
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(TTCore)
    for attr in TTL_ATTRIBUTES:
        ctx.load_attr_or_type(attr)
    _register_upstream(ctx)
    return ctx
