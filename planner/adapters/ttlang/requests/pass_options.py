"""Policy and target inputs read from the IR and the pass options (docs/design/kernel-config.md 4.1, 5).

Pass options are `ttl-set-compute-kernel-config{key=value ...}` entries; function attributes
are hard constraints and win over them. Three-state values travel to the resolver as
written (it owns their spelling rules); what the request cannot carry (an attribute of the
wrong kind) is refused here with the resolver's own codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, ModuleOp, StringAttr, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.base.codes import ATTRIBUTE_INVALID, OPTION_INVALID, OPTION_UNKNOWN
from planner.adapters.ttlang.dialects.ttcore_dialect import ArchAttr, DeviceAttr, DeviceOp, SystemDescAttr
from planner.adapters.ttlang.reading.source import ParsedChunk
from planner.kernelcfg.codes import (
    POLICY_ATTR_NOT_BOOL,
    POLICY_ATTR_NOT_STRING,
    POLICY_UNPACK_ATTR_MALFORMED,
    KcfgError,
)
from planner.kernelcfg.protocol import KernelPolicy, SystemDesc

TARGET_ARCH_ATTR = "ttl.target_arch"
SYSTEM_DESC_ATTR = "ttcore.system_desc"
DEVICE_ATTR = "ttcore.device"
UNPACK_ATTR = "ttl.unpack_to_dest_fp32"
FPU_BINARY_ATTR = "ttl.enable_fpu_binary_ops"
FP32_DEST_ATTR = "fp32_dest_acc_en"
DST_SYNC_ATTR = "dst_full_sync_en"
MATH_FIDELITY_ATTR = "math_fidelity"
MATH_APPROX_ATTR = "math_approx_mode"

OptionKind = Literal["three_state", "bool", "text"]


@dataclass(frozen=True)
class PassOption:
    """A pass option: the request policy field it sets and how its value is spelled."""

    field: str
    kind: OptionKind


PASS_OPTIONS: dict[str, PassOption] = {
    "fp32-dest-acc-en": PassOption("fp32_dest_acc", "three_state"),
    "dst-full-sync-en": PassOption("dst_full_sync", "three_state"),
    "reduce-full-fp32": PassOption("reduce_full_fp32", "bool"),
    "matmul-full-fp32": PassOption("matmul_full_fp32", "bool"),
    "enable-fpu-binary-ops": PassOption("fpu_binary", "bool"),
    "math-fidelity": PassOption("math_fidelity", "text"),
    "math-approx-mode": PassOption("math_approx_mode", "bool"),
    "precision": PassOption("precision", "text"),
}

BOOL_FUNCTION_ATTRS: dict[str, str] = {
    FP32_DEST_ATTR: "fp32_dest_acc",
    DST_SYNC_ATTR: "dst_full_sync",
    FPU_BINARY_ATTR: "fpu_binary",
    MATH_APPROX_ATTR: "math_approx_mode",
}
"""Function attributes that must be booleans, and the policy field each one fixes."""

_BOOL_SPELLINGS = {"true": True, "1": True, "false": False, "0": False}


def _option_value(key: str, value: object) -> tuple[str, bool | str]:
    """The policy field a pass option sets, and its value."""
    option = PASS_OPTIONS.get(key)
    if option is None:
        known = ", ".join(sorted(PASS_OPTIONS))
        raise AdapterInputError(OPTION_UNKNOWN, f"unknown pass option '{key}' (known: {known})")
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if option.kind != "bool":  # the resolver owns the spelling rules of these values
        return option.field, text
    if text not in _BOOL_SPELLINGS:
        raise AdapterInputError(
            OPTION_INVALID, f"invalid {key} value '{text}'; expected true, false, 1, or 0"
        )
    return option.field, _BOOL_SPELLINGS[text]


def option_policy(options: Mapping[str, str] | None) -> dict[str, bool | str]:
    """Pass options as request policy fields; unknown keys and bad booleans are input errors."""
    return dict(_option_value(key, value) for key, value in sorted((options or {}).items()))


def parse_pass_options(text: str) -> dict[str, str]:
    """`ttl-set-compute-kernel-config{a=b c=d}` or `a=b c=d` as a dict (the last repeat wins)."""
    body = text.strip()
    if "{" in body and body.endswith("}"):
        body = body[body.index("{") + 1 : -1]
    options: dict[str, str] = {}
    for item in body.split():
        key, separator, value = item.partition("=")
        if not separator or not key:
            raise AdapterInputError(OPTION_INVALID, f"pass option '{item}' is not key=value")
        options[key] = value
    return options


def _bool_attr(name: str, attr: Attribute) -> bool:
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
        return bool(attr.value.data)
    raise KcfgError(POLICY_ATTR_NOT_BOOL, f"{name} must be a boolean attribute", "function")


def _unpack_attr(attr: Attribute) -> list[int]:
    if isinstance(attr, DenseArrayBase) and attr.elt_type == i32:
        return [int(value) for value in attr.get_values()]
    raise KcfgError(
        POLICY_UNPACK_ATTR_MALFORMED, f"{UNPACK_ATTR} must be a dense i32 array attribute", "function"
    )


def function_policy(function: FuncOp, from_options: Mapping[str, bool | str]) -> KernelPolicy:
    """Section 5: the options, overridden by the function's own attributes (hard constraints)."""
    fields: dict[str, object] = dict(from_options)
    for name, field in BOOL_FUNCTION_ATTRS.items():
        if (attr := function.attributes.get(name)) is not None:
            fields[field] = _bool_attr(name, attr)
    if (unpack := function.attributes.get(UNPACK_ATTR)) is not None:
        fields["unpack_to_dest_fp32"] = _unpack_attr(unpack)
    if (fidelity := function.attributes.get(MATH_FIDELITY_ATTR)) is not None:
        if not isinstance(fidelity, StringAttr):
            text = f"{MATH_FIDELITY_ATTR} must be a string attribute"
            raise KcfgError(POLICY_ATTR_NOT_STRING, text, "function")
        fields["math_fidelity"] = fidelity.data
    return KernelPolicy.model_validate(fields)


def enclosing_module(op: Operation) -> ModuleOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    return parent


def target_arch(module: ModuleOp | None) -> str | None:
    """The `ttl.target_arch` name; another kind of attribute is passed on as written so the
    target lookup refuses it (`kcfg.target_arch_invalid`, section 4.1)."""
    attr = module.attributes.get(TARGET_ARCH_ATTR) if module is not None else None
    if attr is None:
        return None
    return attr.arch.data if isinstance(attr, ArchAttr) else str(attr)


def _description(
    module: ModuleOp, name: str, kind: type[SystemDescAttr | DeviceAttr], parsed: ParsedChunk
) -> SystemDescAttr | DeviceAttr | None:
    """The module's `name` attribute; one of another kind cannot describe a target (section 4.1)."""
    attr = module.attributes.get(name)
    if attr is None or isinstance(attr, kind):
        return attr
    message = f"'builtin.module' op {name} must be a #{kind.name} attribute"
    raise parsed.error_at(module, ATTRIBUTE_INVALID, message)


def target_system(module: ModuleOp | None, parsed: ParsedChunk) -> SystemDesc | None:
    """The chip architectures of `ttcore.system_desc` and the chip ids of `ttcore.device`, for the
    resolver's agreement rules (section 4.1); None when the module has neither. The device is the
    module attribute or, next to a system description, the `ttcore.device` op."""
    if module is None:
        return None
    system = _description(module, SYSTEM_DESC_ATTR, SystemDescAttr, parsed)
    device = _description(module, DEVICE_ATTR, DeviceAttr, parsed)
    if system is None and device is None:
        return None
    archs = [arch.data for arch in system.chip_archs.data] if isinstance(system, SystemDescAttr) else []
    chips = [chip.data for chip in device.chip_ids.data] if isinstance(device, DeviceAttr) else None
    if chips is None and system is not None:
        chips = _device_op_chips(module)
    return SystemDesc(chip_archs=archs, device_chip_ids=chips)


def _device_op_chips(module: ModuleOp) -> list[int] | None:
    """The `chipIds` of the module's `ttcore.device` op (`ttcore.device @default_device = <...>`)."""
    for op in module.body.ops:
        if isinstance(op, DeviceOp) and (chips := op.chip_ids()) is not None:
            return chips
    return None
