"""DML_SIZE_2D, a width and a height: ROI_POOLING's PooledSize (and UPSAMPLE_2D's ScaleSize, whose family may share
it). DirectML.h orders the members Width, then Height; prose on the pages often says "(height, width)"."""

from __future__ import annotations

from pydantic import Field

from dmlpy.model import DmlModel, UInt32


class Size2D(DmlModel):
    """DML_SIZE_2D: two UINTs, Width then Height (DirectML.h's order)."""

    C_STRUCT = "DML_SIZE_2D"

    width: UInt32 = Field(alias="Width")
    """Width (UINT): the extent along the last dimension."""
    height: UInt32 = Field(alias="Height")
    """Height (UINT): the extent along the dimension before it."""

    def describe(self) -> str:
        return f"DML_SIZE_2D {{Width {self.width}, Height {self.height}}}"
