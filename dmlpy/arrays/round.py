"""Round's plan: what ``dml.round`` runs. DirectML's Round runs float32 and float16 in its three modes; everything
else the one-liner accepts (nGraph's other modes, float64, bfloat16, integers) runs the Round extension
(``dmlpy.extensions``, not DirectML) on a device with extensions enabled. ``round_call`` is the plan: the one
call the runner runs, for a whole array, for each ``devices=`` piece and for each Dask block (``dask``).
``round_array`` checks a call on a host or device array and runs its plan (``devices=`` included);
``one_liners.round`` adds Dask.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

from dmlpy.arrays import runner
from dmlpy.arrays.checks import InputTypes, check_device, check_out, input_array, out_data, unmask, with_mask
from dmlpy.arrays.dispatch import ArrayCall
from dmlpy.arrays.split import Piece, check_devices, run_split
from dmlpy.dtypes import data_type_of
from dmlpy.enums import ExtRoundingMode
from dmlpy.modes import DIRECTML_EQUIVALENT, EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.ops.ext_element_wise_round import SUPPORTED_TYPES, ExtElementWiseRoundOperatorDesc
from dmlpy.runtime.device import Device

DIRECTML_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


def supported(dtype: np.dtype[Any]) -> bool:
    try:
        return data_type_of(dtype) in SUPPORTED_TYPES
    except ValueError:
        return False


ROUND_INPUTS = InputTypes(
    supported,
    "dml.round takes float32 or float16 arrays (DirectML's FLOAT32, FLOAT16), or float64, bfloat16 and integer "
    "arrays (dmlpy extensions)",
    converts_to={},  # what it refuses (complex, bool, text) has no rounding to convert to
)


def round_call(array: Any, mode: AnyRoundingMode, out: Any) -> ArrayCall:
    """The call that rounds ``array`` (checked) into ``out`` (None: a new array): DirectML's Round wherever
    DirectML can do it, else the extension."""
    directml_mode = DIRECTML_EQUIVALENT.get(mode) if isinstance(mode, ExtRoundingMode) else mode
    if array.dtype in DIRECTML_DTYPES and directml_mode is not None:
        desc_class: Any = ElementWiseRoundOperatorDesc
        fields: tuple[tuple[str, Any], ...] = (("rounding_mode", directml_mode),)
    else:
        extension_mode = mode if isinstance(mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[mode]
        desc_class, fields = ExtElementWiseRoundOperatorDesc, (("rounding_mode", extension_mode),)
    return ArrayCall(desc_class, fields, [array], out, array.dtype)


def round_array(x: object, mode: object, out: object, device: object, devices: object) -> Any:
    """dml.round of anything but a dask array; see ``one_liners.round``."""
    data, mask = unmask(x)
    array = input_array(data, ROUND_INPUTS)
    rounding_mode = resolve_mode(mode)  # type: ignore[arg-type]  # resolve_mode refuses junk
    target = out_data(out, mask)
    check_out(target, array.shape, array.dtype, what="the input's", x=array)
    if devices is not None:
        split = check_devices(devices, device, array)
        whole: npt.NDArray[Any] = cast("npt.NDArray[Any]", target) if target is not None else np.empty_like(array)

        def piece(index: Piece, axis: int, on: Device, into: npt.NDArray[Any]) -> None:
            runner.run(round_call(array[index], rounding_mode, into[index]), on)

        run_split(array, whole, split, piece, fresh=target is None)
        return with_mask(whole, out, mask, keep_fill_value=True)
    check_device(device)
    result = runner.run(round_call(array, rounding_mode, target), cast("Device | None", device))
    return with_mask(result, out, mask, keep_fill_value=True)
