"""No silent surprises in the one-liners (issue 13): ``mode`` is keyword-only; anything that is not an array of a
supported dtype is refused naming what it got (None, generators, device arrays, torch tensors NumPy cannot
view, objects whose ``__array__`` raises); what NumPy views without a copy (``__array__``, ``__dlpack__``, a
torch CPU tensor) is accepted and NumPy returned; masked arrays keep their mask."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml

F32 = np.dtype(np.float32)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.2], F32)


def _round(x: Any) -> Any:
    return dml.round(x)


def _quantize(x: Any) -> Any:
    return dml.quantize_linear(x, np.float32(0.5))


def _dequantize(x: Any) -> Any:
    return dml.dequantize_linear(x, np.float32(0.5))


ONE_LINERS = {"round": _round, "quantize_linear": _quantize, "dequantize_linear": _dequantize}


# ------------------------------------------------------------------------------------- mode is keyword-only


def test_round_with_a_positional_second_argument_is_pythons_type_error() -> None:
    # np.round(x, 2) means two decimals; dml.round(x, 2) used to round halves away from zero (mode 2) silently.
    with pytest.raises(TypeError, match=r"positional argument"):
        dml.round(HALVES, 2)  # type: ignore[misc]
    with pytest.raises(TypeError):
        dml.round(HALVES, "half_to_even")  # type: ignore[misc]
    assert dml.round(HALVES, mode=2).tolist() == [-3, -2, -1, 1, 2, 3, 4, -3]


def test_signatures() -> None:
    for function in (dml.round, dml.quantize_linear):
        mode = inspect.signature(function).parameters["mode"]
        assert mode.kind is inspect.Parameter.KEYWORD_ONLY, function
    quantize = inspect.signature(dml.quantize_linear).parameters
    positional = [name for name, p in quantize.items() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == ["x", "scale", "zero_point", "axis", "dtype"]  # ONNX's order
    dequantize = inspect.signature(dml.dequantize_linear).parameters
    assert "mode" not in dequantize
    assert [n for n, p in dequantize.items() if p.kind is inspect.Parameter.KEYWORD_ONLY] == [
        "block_size",
        "out",
        "device",
        "devices",
    ]
    with pytest.raises(TypeError):
        dml.quantize_linear(HALVES, 0.5, 0, 0, np.uint8, "ROUND_UP")  # type: ignore[misc]
    with pytest.raises(TypeError):
        dml.dequantize_linear(np.uint8([1]), 0.5, mode="ROUND_UP")  # type: ignore[call-arg]


@pytest.mark.parametrize("mode", [True, False, 1.0, 2.0, np.bool_(True), np.float32(1)], ids=repr)
def test_modes_that_only_look_like_numbers_are_refused(mode: Any) -> None:
    for call in (
        lambda: dml.round(HALVES, mode=mode),
        lambda: dml.quantize_linear(HALVES, 0.5, mode=mode),
    ):
        with pytest.raises(dml.InvalidArgumentError, match=r"^mode must be"):
            call()


# ------------------------------------------------------------------------------- what is not an array, named


class RaisingArray:
    """Like a torch tensor that requires grad: ``__array__`` raises something NumPy does not catch."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")


def _pyopencl_array() -> Any:
    import pyopencl as cl
    import pyopencl.array as cl_array

    queue = cl.CommandQueue(dml.default_device().context)
    return cl_array.to_device(queue, HALVES)


def _pyopencl_buffer() -> Any:
    import pyopencl as cl

    return cl.Buffer(dml.default_device().context, cl.mem_flags.READ_ONLY, 64)


NOT_ARRAYS: list[tuple[str, Any, str]] = [
    ("None", lambda: None, "x is None"),
    ("generator", lambda: (v for v in HALVES), "x is a generator; NumPy makes no array of an iterator"),
    ("map", lambda: map(float, HALVES), "x is a map; NumPy makes no array of an iterator"),
    ("pyopencl_buffer", _pyopencl_buffer, "x is a pyopencl.Buffer (device memory); the one-liners take device memory"),
    ("dml_buffer", lambda: dml.default_device().create_buffer(64), "Buffer, not an array of numbers"),
    ("dict", lambda: {"a": 1.5}, "x is a dict that NumPy can only hold as Python objects"),
    ("list_with_None", lambda: [1.5, None], "x is a list that NumPy can only hold as Python objects"),
    ("object_array", lambda: np.array([1.5, 2.5], dtype=object), "x is an object array (dtype=object)"),
    ("raising___array__", RaisingArray, "RaisingArray that NumPy cannot read as an array: RuntimeError"),
]


@pytest.mark.parametrize("one_liner", list(ONE_LINERS))
@pytest.mark.parametrize(("make", "message"), [(m, t) for _, m, t in NOT_ARRAYS], ids=[i for i, _, _ in NOT_ARRAYS])
def test_what_is_not_an_array_is_named(one_liner: str, make: Any, message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        ONE_LINERS[one_liner](make())
    assert message in str(error.value)
    assert "got object" not in str(error.value) and "a object array" not in str(error.value)


def test_scale_and_zero_point_name_what_they_got_too() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale is a pyopencl\.array\.Array .*pass scale\.get\(\)"):
        dml.quantize_linear(HALVES, _pyopencl_array())
    with pytest.raises(dml.InvalidArgumentError, match=r"^zero_point is a generator"):
        dml.quantize_linear(HALVES, 0.5, (v for v in [1]))
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale is a \S*RaisingArray that NumPy cannot read"):
        dml.dequantize_linear(np.uint8([1]), RaisingArray())


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (np.zeros(3, np.complex64), "x is a complex64 array; dml.round takes"),
        ([0.5j], "x is a list that NumPy reads as complex128; dml.round takes"),
        (np.complex64(1), "x is a NumPy complex64 scalar"),
    ],
    ids=["array", "list", "scalar"],
)
def test_unsupported_dtype_says_what_was_given(x: Any, message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=message):
        dml.round(x)


# ---------------------------------------------------------------------- what NumPy views without a copy


class DlpackOnly:
    """An array that offers only DLPack (no ``__array__``), as some libraries' CPU arrays do."""

    def __init__(self, array: npt.ArrayLike) -> None:
        self._array = np.asarray(array)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()


class ArrayInterface:
    """An array that offers ``__array__`` returning a view of its memory (as a torch CPU tensor does)."""

    def __init__(self, array: npt.ArrayLike) -> None:
        self._array = np.asarray(array)

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        return self._array


@pytest.mark.parametrize("wrapper", [DlpackOnly, ArrayInterface])
def test_dlpack_and___array___objects_are_taken_and_numpy_returned(wrapper: Any) -> None:
    got = dml.round(wrapper(HALVES))
    assert type(got) is np.ndarray and got.tolist() == np.rint(HALVES).tolist()
    quantized = dml.quantize_linear(wrapper(HALVES), 0.5, np.uint8(10))
    assert type(quantized) is np.ndarray and quantized.dtype == np.uint8
    codes = np.array([0, 10, 255], np.uint8)
    assert dml.dequantize_linear(wrapper(codes), wrapper(np.float32(0.5)), wrapper(np.uint8(10))).tolist() == [
        -5.0,
        0.0,
        122.5,
    ]


def test_dlpack_device_memory_is_refused_naming_it() -> None:
    class OnAGpu(DlpackOnly):
        def __dlpack_device__(self) -> tuple[int, int]:
            return (2, 0)  # kDLCUDA

        def __dlpack__(self, **kwargs: Any) -> Any:
            raise BufferError("the array is on a CUDA device")

    with pytest.raises(dml.InvalidArgumentError, match=r"^x is a .*OnAGpu whose DLPack export NumPy cannot read"):
        dml.round(OnAGpu(HALVES))


class FakeTensor:
    """A stand-in with a torch tensor's attributes, for the messages when torch is not installed (the class
    says it comes from the module ``torch``; torch itself is never imported by dmlpy)."""

    __module__ = "torch"

    def __init__(self, *, requires_grad: bool = False, device: str = "cpu", dtype: str = "torch.float32") -> None:
        self.requires_grad, self.device, self.dtype = requires_grad, device, dtype

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        raise RuntimeError("a torch exception that must not leak")


@pytest.mark.parametrize(
    ("tensor", "message"),
    [
        (FakeTensor(requires_grad=True), r"x is a torch\.Tensor that requires grad.*pass x\.detach\(\)"),
        (FakeTensor(device="cuda:0"), r"x is a torch\.Tensor on cuda:0.*pass x\.cpu\(\)"),
        (FakeTensor(dtype="torch.bfloat16"), r"x is a torch\.bfloat16 tensor.*view\(torch\.int16\)"),
        (FakeTensor(), r"x is a torch\.FakeTensor that NumPy cannot read as an array: RuntimeError"),
    ],
    ids=["requires_grad", "cuda", "bfloat16", "other"],
)
@pytest.mark.parametrize("one_liner", list(ONE_LINERS))
def test_torch_like_tensors_never_leak_an_exception(one_liner: str, tensor: FakeTensor, message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=message):
        ONE_LINERS[one_liner](tensor)


# -------------------------------------------------------------------------------------- torch, when installed


@pytest.fixture
def torch() -> Any:
    return pytest.importorskip("torch", reason="torch is not installed (pip install torch to run the torch tests)")


def test_torch_cpu_tensors_are_taken_without_a_copy_and_numpy_returned(torch: Any) -> None:
    tensor = torch.tensor(HALVES.tolist(), dtype=torch.float32)
    assert np.shares_memory(np.asarray(tensor), tensor.numpy())  # __array__ is a view: no copy
    got = dml.round(tensor, mode="half_away_from_zero")
    assert type(got) is np.ndarray and got.tolist() == [-3, -2, -1, 1, 2, 3, 4, -3]
    in_place = tensor.numpy()  # out= takes NumPy; this one is the tensor's memory
    dml.round(tensor, out=in_place)
    assert tensor.tolist() == np.rint(HALVES).tolist()
    assert dml.quantize_linear(torch.tensor([1.0, 2.0]), 0.5).tolist() == [2, 4]
    assert dml.dequantize_linear(torch.tensor([4, 6], dtype=torch.uint8), 0.5).tolist() == [2.0, 3.0]
    assert dml.round(torch.tensor([1.5], dtype=torch.float64)).dtype == np.float64


@pytest.mark.parametrize("one_liner", list(ONE_LINERS))
def test_torch_tensors_numpy_cannot_view_are_refused_clearly(torch: Any, one_liner: str) -> None:
    for tensor, words in (
        (torch.tensor([1.5, 2.5], dtype=torch.bfloat16), "torch.bfloat16 tensor"),
        (torch.tensor([1.5, 2.5], requires_grad=True), "requires grad"),
    ):
        with pytest.raises(dml.InvalidArgumentError, match=words):
            ONE_LINERS[one_liner](tensor)


def test_torch_bool_tensor_says_what_it_is(torch: Any) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"x is a torch\.Tensor that NumPy reads as bool"):
        dml.round(torch.tensor([True]))


# --------------------------------------------------------------------------------------------- masked arrays


def _masked(dtype: Any = F32) -> np.ma.MaskedArray:
    data = HALVES.astype(dtype) if np.dtype(dtype).kind == "f" else np.arange(8, dtype=dtype) * 3
    return np.ma.array(data, mask=[0, 1, 0, 0, 1, 0, 0, 1], fill_value=np.dtype(dtype).type(7))


def test_round_keeps_the_mask_and_rounds_the_data_under_it_as_np_round_does() -> None:
    x = _masked()
    got = dml.round(x)
    expected = np.round(x)
    assert isinstance(got, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(x))
    np.testing.assert_array_equal(got.data, expected.data)  # masked slots: the data under the mask, rounded
    assert got.fill_value == x.fill_value == 7
    assert got.mask is not x.mask  # a copy: changing one leaves the other
    got.mask[0] = True
    assert not x.mask[0]
    assert isinstance(dml.round(x, mode="ROUND_UP"), np.ma.MaskedArray)


def test_round_masked_in_place_and_into_masked_out() -> None:
    x = _masked()
    mask = np.ma.getmaskarray(x).copy()
    assert dml.round(x, out=x) is x
    np.testing.assert_array_equal(x.mask, mask)
    np.testing.assert_array_equal(x.data, np.rint(HALVES))
    out = np.ma.array(np.zeros(8, F32), mask=True)
    assert dml.round(_masked(), mode="toward_zero", out=out) is out
    np.testing.assert_array_equal(out.mask, mask)
    np.testing.assert_array_equal(out.data, np.trunc(HALVES))
    out = np.ma.array(np.zeros(8, F32), mask=True)
    dml.round(HALVES, out=out)  # a plain x: nothing is masked in the result, as a NumPy ufunc clears the mask
    assert not np.ma.is_masked(out) and out.data.tolist() == np.rint(HALVES).tolist()


@pytest.mark.parametrize("one_liner", list(ONE_LINERS))
def test_a_plain_out_for_a_masked_x_is_refused_not_the_mask_dropped(one_liner: str) -> None:
    x = _masked(np.uint8) if one_liner == "dequantize_linear" else _masked()
    dtype = {"round": F32, "quantize_linear": np.uint8, "dequantize_linear": F32}[one_liner]
    out = np.zeros(8, dtype)
    call = {
        "round": lambda: dml.round(x, out=out),
        "quantize_linear": lambda: dml.quantize_linear(x, 0.5, out=out),
        "dequantize_linear": lambda: dml.dequantize_linear(x, 0.5, out=out),
    }[one_liner]
    with pytest.raises(dml.InvalidArgumentError, match=r"^out is a plain NumPy array but x is a masked array"):
        call()
    assert not out.any()


def test_quantize_and_dequantize_keep_the_mask() -> None:
    x = _masked()
    q = dml.quantize_linear(x, np.float32([0.5] * 8), np.uint8(10), axis=0)
    assert isinstance(q, np.ma.MaskedArray) and q.dtype == np.uint8
    np.testing.assert_array_equal(np.ma.getmaskarray(q), np.ma.getmaskarray(x))
    np.testing.assert_array_equal(q.data, dml.quantize_linear(x.data, 0.5, np.uint8(10)))  # masked slots too
    assert q.fill_value == np.ma.default_fill_value(np.uint8(0))  # the output dtype's default
    d = dml.dequantize_linear(q, np.float32(0.5), np.uint8(10))
    assert isinstance(d, np.ma.MaskedArray) and d.dtype == np.float32
    np.testing.assert_array_equal(np.ma.getmaskarray(d), np.ma.getmaskarray(x))
    np.testing.assert_array_equal(d.data, (q.data.astype(np.float32) - 10) * 0.5)
    out = np.ma.array(np.zeros(8, np.uint8))
    assert dml.quantize_linear(x, 0.5, out=out) is out
    np.testing.assert_array_equal(out.mask, np.ma.getmaskarray(x))


def test_masked_without_masked_entries_stays_a_masked_array() -> None:
    x = np.ma.array(HALVES)  # mask is nomask
    got = dml.round(x)
    assert isinstance(got, np.ma.MaskedArray) and not np.ma.is_masked(got)
    assert got.data.tolist() == np.rint(HALVES).tolist()
    d = dml.dequantize_linear(np.ma.array(np.uint8([2, 4]), mask=[0, 0]), 0.5)
    assert isinstance(d, np.ma.MaskedArray) and d.tolist() == [1.0, 2.0]


def test_masked_scales_and_zero_points() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale is a masked array with 1 masked entry"):
        dml.quantize_linear(np.ones((2, 3), F32), np.ma.array(np.float32([1, 2, 4]), mask=[0, 1, 0]))
    with pytest.raises(dml.InvalidArgumentError, match=r"^zero_point is a masked array with 2 masked entries"):
        dml.dequantize_linear(np.uint8([1, 2]), 0.5, np.ma.array(np.uint8([1, 2]), mask=[1, 1]), axis=0)
    unmasked = np.ma.array(np.float32([1, 2, 4]), mask=False)  # nothing masked: its data is used
    assert dml.quantize_linear(np.full((2, 3), 4, F32), unmasked).tolist() == [[4, 2, 1], [4, 2, 1]]
