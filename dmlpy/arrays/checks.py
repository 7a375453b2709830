"""The one-liners' argument checks: each refuses what it cannot use with InvalidArgumentError naming the
argument and what it got, before anything is allocated or dispatched. Nothing here allocates or opens a
device: that is the runner's.

What an array argument may be: a NumPy array or scalar, a Python number or nested lists of numbers, or anything
NumPy reads as an array *without copying* through ``__array__`` (a torch CPU tensor: the result is NumPy) or
``__dlpack__``; for ``x`` and ``out``, a ``pyopencl.array.Array`` too (device in, device out). Refused, naming
what was given: None, iterators and generators (NumPy would wrap them as one object), other device memory
(pyopencl buffers, dml.Buffer, a pyopencl array as a scale or zero point), torch tensors that NumPy cannot
view (one that requires grad, one on a GPU, a bfloat16 one), and anything NumPy can only hold as Python
objects. A masked ``x`` keeps its mask (``unmask`` / ``with_mask``); a masked scale or zero point with masked
entries is refused.

One rule for ``x``'s dtype, in every one-liner (``InputTypes``): ``x`` runs in its own dtype, a list's or
number's being NumPy's reading of it (float64, int64), and is never converted, since a conversion may change its
values unseen; a dtype the one-liner does not take is refused naming the conversion (``np.asarray(x,
np.float32)``). A one-liner's arguments past its positional ones are keyword-only, and saying so
(``keyword_only_explained``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, cast

import numpy as np
import numpy.typing as npt
import pyopencl.array as cl_array

from dmlpy.errors import InvalidArgumentError, KeywordOnlyArgumentError
from dmlpy.runtime.device import Device

MAX_DIMENSIONS = 8

Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


def keyword_only_explained(
    call: str, why: str
) -> Callable[[Callable[Parameters, Result]], Callable[Parameters, Result]]:
    """A one-liner (named ``call``) that refuses more positional arguments than it takes with
    KeywordOnlyArgumentError saying ``why`` the rest are keyword-only, where Python's TypeError says only how many
    it takes. The signature stays the function's own (``inspect.signature``, the docs)."""

    def explained(function: Callable[Parameters, Result]) -> Callable[Parameters, Result]:
        parameters = inspect.signature(function).parameters.values()
        positional = [p.name for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        keywords = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        limit = "at most " if len(positional) > 1 else ""
        takes = f"{call} takes {limit}{len(positional)} positional argument{'s' if len(positional) > 1 else ''}"
        rest = f"{', '.join(keywords[:-1])} and {keywords[-1]} are keyword-only"

        @functools.wraps(function)
        def checked(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
            if len(args) > len(positional):
                raise KeywordOnlyArgumentError(
                    f"{takes} ({', '.join(positional)}) but {len(args)} were given; {rest}: {why}"
                )
            return function(*args, **kwargs)

        return checked

    return explained


def is_device_array(value: object) -> bool:
    """Whether ``value`` is device memory the one-liners take as ``x`` and ``out``: a ``pyopencl.array.Array``."""
    return isinstance(value, cl_array.Array)


def is_dask_array(value: object) -> bool:
    """Whether ``value`` is a ``dask.array.Array``, told without importing dask."""
    kind = type(value)
    return kind.__name__ == "Array" and kind.__module__.split(".", 1)[0] == "dask"


def described(value: object, limit: int = 60) -> str:
    """A value as an argument error quotes it: its type and a repr cut to ``limit`` characters."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__} {text}"


def type_name(value: object) -> str:
    """The value's type as a user would import it: ``list``, ``generator``, ``torch.Tensor``,
    ``pyopencl.array.Array``."""
    kind = type(value)
    public = ".".join(part for part in kind.__module__.split(".") if not part.startswith("_"))  # pyopencl._cl
    return kind.__qualname__ if public in ("builtins", "") else f"{public}.{kind.__qualname__}"


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _refuse_torch(name: str, value: object) -> None:
    """A torch tensor NumPy cannot view in place, refused with the call that makes one it can. Only attributes
    are read: torch itself is never imported here."""
    device = str(getattr(value, "device", "cpu"))
    if getattr(value, "requires_grad", False) is True:
        raise InvalidArgumentError(
            f"{name} is a torch.Tensor that requires grad; the NumPy one-liners return NumPy arrays and record no "
            f"gradient: pass {name}.detach() (the same memory, no copy)"
        )
    if device != "cpu":
        raise InvalidArgumentError(
            f"{name} is a torch.Tensor on {device}; the NumPy one-liners take host memory: pass {name}.cpu() (a copy "
            "in host memory)"
        )
    if str(getattr(value, "dtype", "")) == "torch.bfloat16":
        raise InvalidArgumentError(
            f"{name} is a torch.bfloat16 tensor, which torch cannot hand to NumPy (NumPy has no bfloat16 of its own): "
            f"pass {name}.view(torch.int16).numpy().view(ml_dtypes.bfloat16) (the same memory, no copy)"
        )


def _refuse_unusable(name: str, value: object) -> None:
    """What NumPy would wrap as one Python object, or cannot view without a copy, refused naming what it is."""
    if value is None:
        raise InvalidArgumentError(
            f"{name} is None; it must be an array of numbers (a NumPy array, a number, or nested lists of numbers)"
        )
    module = type(value).__module__.split(".")[0]
    if module == "pyopencl":
        hint = f"pass {name}.get() for a NumPy copy" if hasattr(value, "get") else "copy it to a NumPy array first"
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))} (device memory); the one-liners take device memory as x and out "
            f"only, as pyopencl arrays: {hint}"
        )
    if module == "dmlpy":  # a dml.Buffer, a Device, a descriptor: none of them is an array
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))}, not an array of numbers; the one-liners take NumPy arrays (device "
            "buffers run through the object model: device.create_operator, BindingTable)"
        )
    if module == "torch" and hasattr(value, "requires_grad"):
        _refuse_torch(name, value)
    if isinstance(value, Iterator):  # a generator, map, zip, iter(...): NumPy wraps it as one object
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))}; NumPy makes no array of an iterator: pass list({name}) or "
            f"np.fromiter({name}, dtype)"
        )
    if isinstance(value, np.ma.MaskedArray) and np.ma.is_masked(value):
        count = np.count_nonzero(np.ma.getmaskarray(value))
        raise InvalidArgumentError(
            f"{name} is a masked array with {count} masked {'entry' if count == 1 else 'entries'}; {name} takes no "
            f"masked values: pass {name}.filled(value) or np.ma.getdata({name})"
        )


def as_array(name: str, value: object) -> npt.NDArray[Any]:
    """``value`` as a NumPy array of numbers, without a copy where it already is one (a NumPy array, a torch CPU
    tensor through ``__array__``, an object with ``__dlpack__``). InvalidArgumentError naming the argument and
    what it got for anything else: see the module's docstring."""
    _refuse_unusable(name, value)
    try:
        array = np.asarray(value)
    except MemoryError:
        raise
    except (ValueError, TypeError) as error:
        if isinstance(value, list | tuple):
            raise InvalidArgumentError(
                f"{name} must be a rectangular array of numbers (a NumPy array, a number, or nested lists whose rows "
                f"have equal lengths); NumPy cannot make an array of the {described(value)} given: {error}"
            ) from None
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))} that NumPy cannot read as an array: {type(error).__name__}: {error}"
        ) from None
    except Exception as error:  # an __array__ of another library (torch raises RuntimeError): never let it leak
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))} that NumPy cannot read as an array: {type(error).__name__}: {error}"
        ) from None
    if array.dtype.kind == "O" and hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray):
        try:
            array = np.from_dlpack(value)
        except MemoryError:
            raise
        except Exception as error:
            raise InvalidArgumentError(
                f"{name} is {_a(type_name(value))} whose DLPack export NumPy cannot read: {type(error).__name__}: "
                f"{error}"
            ) from None
    if array.dtype.kind == "O":
        if isinstance(value, np.ndarray):
            raise InvalidArgumentError(
                f"{name} is an object array (dtype=object), not an array of numbers: convert it first "
                f"({name}.astype(np.float32), for one)"
            )
        raise InvalidArgumentError(
            f"{name} is {_a(type_name(value))} that NumPy can only hold as Python objects, not an array of numbers"
        )
    return array


def got(value: object, array: npt.NDArray[Any]) -> str:
    """What an argument is, for a dtype refusal: "a float64 array", "a list that NumPy reads as complex128"."""
    if isinstance(value, np.ndarray):
        return f"a {array.dtype} array"
    if isinstance(value, np.generic):
        return f"a NumPy {array.dtype} scalar"
    return f"{_a(type_name(value))} that NumPy reads as {array.dtype}"


@dataclass(frozen=True)
class InputTypes:
    """What a one-liner takes as ``x``, for the one rule all of them apply: ``x`` runs in its own dtype (a list's
    or number's is NumPy's reading of it: float64, int64) and is never converted, since a conversion may change
    its values unseen (float64 to float32 rounds); a dtype not taken is refused naming the conversion."""

    accepts: Callable[[np.dtype[Any]], bool]
    """Whether a dtype (in native byte order) is taken."""
    takes: str
    """Which are, in words: "quantize_linear takes float32, float16 or int32 input"."""
    converts_to: dict[str, str]
    """For a refused dtype's NumPy kind letter, the dtype a conversion gives ("np.float32"); a kind not here
    (complex, bool, text) gets no suggestion."""
    note: str = ""
    """Said after the conversion: ", or the integer type x was quantized to"."""

    def refusal(self, x: object, given: str, dtype: np.dtype[Any]) -> InvalidArgumentError:
        """The refusal of ``x``, described as ``given`` ("a float64 array"), whose dtype is ``dtype``."""
        target = self.converts_to.get(dtype.kind)
        if target is None:
            return InvalidArgumentError(f"x is {given}; {self.takes}")
        conversion = f"x.astype({target})" if hasattr(x, "astype") else f"np.asarray(x, {target})"
        return InvalidArgumentError(
            f"x is {given}; {self.takes}: pass {conversion}{self.note} (dmlpy never converts x itself: a "
            "conversion may change its values)"
        )


def input_array(value: object, types: InputTypes) -> Any:
    """A one-liner's ``x``: an array whose dtype ``types`` takes, of at most 8 dimensions, returned in native
    byte order (big-endian data is converted); InvalidArgumentError saying what it got, what the one-liner takes,
    and the conversion to a dtype it takes. A pyopencl array comes back as it is (device in, device out)."""
    if is_device_array(value):
        device_array = cast("cl_array.Array", value)
        if not types.accepts(device_array.dtype):
            raise types.refusal(value, f"a pyopencl array of {device_array.dtype}", device_array.dtype)
        if device_array.queue is None:
            raise InvalidArgumentError(
                "x is a pyopencl array without a queue; dmlpy enqueues on x's queue: pass x.with_queue(queue)"
            )
        check_dimensions(device_array)
        return device_array
    array = as_array("x", value)
    if not types.accepts(array.dtype.newbyteorder("=")):
        raise types.refusal(value, got(value, array), array.dtype)
    check_dimensions(array)
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def check_device(device: object) -> None:
    """A one-liner's ``device``: a dml.Device or None (the default device), nothing else."""
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentError(
            f"device must be a dml.Device or None, not {described(device)}; a device index, name or selector is "
            "not accepted here: pass dml.create_device(cl_device=...) or dml.default_device(), or None for the "
            "default device"
        )


def check_dimensions(x: npt.NDArray[Any] | cl_array.Array) -> None:
    if x.ndim > MAX_DIMENSIONS:
        raise InvalidArgumentError(f"x has {x.ndim} dimensions; DirectML tensors have at most {MAX_DIMENSIONS}")


def check_out(out: object, shape: tuple[int, ...], dtype: np.dtype[Any], *, what: str, x: object = None) -> None:
    """A one-liner's ``out``: None, or a writeable NumPy array of ``shape`` and ``dtype`` (``what`` says whose
    they are); a pyopencl array of them where ``x`` is one (device in, device out), and only then."""
    if out is None:
        return
    if is_device_array(x) or is_device_array(out):
        if not (is_device_array(x) and is_device_array(out)):
            kinds = ("a pyopencl array", "is not") if is_device_array(out) else (f"{_a(type_name(out))}", "is one")
            raise InvalidArgumentError(
                f"out is {kinds[0]} but x {kinds[1]}; out must be of x's kind (NumPy in, NumPy out; pyopencl arrays "
                "in, pyopencl arrays out)"
            )
        device_out = cast("cl_array.Array", out)
        if device_out.shape != shape or device_out.dtype != dtype:
            raise InvalidArgumentError(
                f"out has shape {device_out.shape} and dtype {device_out.dtype}; it must be {what} {shape} {dtype}"
            )
        return
    if not isinstance(out, np.ndarray):
        raise InvalidArgumentError(f"out must be a NumPy array or None, not {described(out)}")
    if out.shape != shape or out.dtype != dtype:
        raise InvalidArgumentError(
            f"out has shape {out.shape} and dtype {out.dtype}; it must be {what} {shape} {dtype}"
        )
    if not out.flags.writeable:
        raise InvalidArgumentError("out is read-only")


# ---------------------------------------------------------------------------------------------- masked arrays


@dataclass(frozen=True)
class Mask:
    """A masked ``x``'s mask (a copy, or ``np.ma.nomask``) and fill value, for the result."""

    mask: Any
    fill_value: Any


def unmask(x: object) -> tuple[object, Mask | None]:
    """A masked array's data (a view: no copy) and its Mask; anything else as it is, and None."""
    if not isinstance(x, np.ma.MaskedArray):
        return x, None
    mask = np.ma.getmask(x)
    return np.ma.getdata(x), Mask(mask if mask is np.ma.nomask else mask.copy(), x.fill_value)


def out_data(out: object, mask: Mask | None) -> object:
    """What the kernel writes for ``out``: a masked out's data (a view), else ``out`` itself. A plain array
    ``out`` for a masked ``x`` is refused: it cannot hold the mask, which would be silently lost."""
    if isinstance(out, np.ma.MaskedArray):
        return np.ma.getdata(out)
    if mask is not None and isinstance(out, np.ndarray):
        raise InvalidArgumentError(
            "out is a plain NumPy array but x is a masked array, whose mask it cannot hold: pass a masked out "
            "(np.ma.empty_like(x)), out=None for a new masked array, or np.ma.getdata(x) as x to drop the mask"
        )
    return out


def with_mask(result: Any, out: object, mask: Mask | None, *, keep_fill_value: bool) -> Any:
    """The one-liner's return value. A masked ``out`` gets ``x``'s mask (none when ``x`` is not masked, as a
    NumPy ufunc clears it); a new result of a masked ``x`` is a masked array with a copy of its mask, and its
    fill value where the dtype is the same (``keep_fill_value``). The masked slots hold the operator applied to
    the data under the mask, as ``np.round`` does."""
    if isinstance(out, np.ma.MaskedArray):
        out.mask = np.ma.nomask if mask is None else mask.mask
        return out
    if out is not None or mask is None:
        return result
    fill_value = mask.fill_value if keep_fill_value else None
    return np.ma.MaskedArray(result, mask=mask.mask, fill_value=fill_value)
