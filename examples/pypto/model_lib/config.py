"""The model's dimensions, as model libraries keep them: a frozen dataclass and a derived property.

`planner` reads this module with `ast`; it never imports or runs it.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class DecodeConfig:
    hidden_size: int
    head_dim: int = 512
    rope_head_dim: int = 64
    k_tile: int = 128

    @property
    def nope_head_dim(self) -> int:
        """The head dimensions without rotary embedding."""
        return self.head_dim - self.rope_head_dim


FLASH = DecodeConfig(hidden_size=4096)
