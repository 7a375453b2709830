"""A CPU device's allocations are checked against the host memory the process can still get (issue 12, defect 6).

On a CPU device, device memory is host memory, and PoCL uses the pointer its malloc returned without checking
it: with the address space limited (RLIMIT_AS at the memory in use + 512 MiB), ``create_buffer(600 MiB)`` and
``upload`` of a 400 MiB array killed the process (SIGSEGV or SIGABRT inside PoCL). Each case runs in a child
process with that limit, which must end with a clean OutOfMemoryError and exit 0, not a signal."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dmlpy as dml

MIB = 2**20

CHILD = textwrap.dedent(
    """
    import os, resource, sys
    import numpy as np
    import pyopencl as cl
    import dmlpy as dml

    MIB = 2**20
    platform_name, device_name = sys.argv[1], sys.argv[2]
    cl_device = next(
        d for p in cl.get_platforms() if p.name == platform_name for d in p.get_devices() if d.name == device_name
    )
    device = dml.create_device(cl_device=cl_device)
    assert device.upload(np.arange(4, dtype=np.float32)).read(np.float32, 4).tolist() == [0, 1, 2, 3]
    with open("/proc/self/statm") as statm:
        in_use = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (in_use + 512 * MIB, hard))

    def refused(what, call):
        try:
            call()
        except dml.OutOfMemoryError as error:
            print(what, "refused:", error, flush=True)
        else:
            print(what, "was not refused", flush=True)
            sys.exit(3)

    refused("create_buffer", lambda: device.create_buffer(600 * MIB))
    array = np.ones(400 * MIB, np.uint8)
    refused("upload", lambda: device.upload(array))
    del array
    # What fits is still allocated, and the device still works.
    with device.create_buffer(256 * MIB) as big:
        big.write(np.full(16, 7, np.uint8), offset=255 * MIB)
        assert big.read(np.uint8, 16, offset=255 * MIB).tolist() == [7] * 16
    assert device.upload(np.arange(8, dtype=np.float32)).read(np.float32, 8).tolist() == list(range(8))
    print("OK", flush=True)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and sets RLIMIT_AS")
def test_allocations_beyond_the_address_space_limit_raise_out_of_memory(device: dml.Device) -> None:
    if not device.is_cpu:
        pytest.skip(f"{device.name} has its own memory")
    cl_device = device.cl_device
    result = subprocess.run(
        [sys.executable, "-c", CHILD, cl_device.platform.name, cl_device.name],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"the child ended with {result.returncode} (a negative value is a signal):\n{output}"
    assert "OK" in result.stdout.splitlines(), output
    lines = {line.split(" refused: ")[0]: line for line in result.stdout.splitlines() if " refused: " in line}
    assert str(600 * MIB) in lines["create_buffer"] and "RLIMIT_AS" in lines["create_buffer"], output
    assert str(400 * MIB) in lines["upload"] and "RLIMIT_AS" in lines["upload"], output


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_headroom_is_known_on_linux() -> None:
    from dmlpy.runtime.buffer import host_memory_headroom

    headroom = host_memory_headroom()
    assert headroom is not None and headroom[0] > 0
    assert "MemAvailable" in headroom[1] or "RLIMIT_AS" in headroom[1]


def test_more_than_the_host_has_is_refused_before_allocating(device: dml.Device) -> None:
    from dmlpy.runtime.buffer import HOST_MEMORY_MARGIN, check_host_memory, host_memory_headroom

    if not device.is_cpu:
        pytest.skip(f"{device.name} has its own memory")
    headroom = host_memory_headroom()
    if headroom is None:
        pytest.skip("this host does not say how much memory it has left")
    too_much = 2 * headroom[0] + HOST_MEMORY_MARGIN
    with pytest.raises(dml.OutOfMemoryError, match=rf"a {too_much}-byte buffer .*(MemAvailable|RLIMIT_AS)"):
        check_host_memory(device, too_much)
    check_host_memory(device, MIB)  # fits: no error
    assert device.create_buffer(MIB).read(np.uint8, 4).tolist() == [0, 0, 0, 0]


def test_packed_fast_path_leaves_an_input_larger_than_one_buffer_to_the_pieces() -> None:
    # QuantizeLinear's float32 input is four times its uint8 output: the fast path must look at every array,
    # or it would make an input buffer past CL_DEVICE_MAX_MEM_ALLOC_SIZE instead of running in pieces.
    # A stand-in device with a 1 KiB limit: the fast path must decline before touching OpenCL.
    from types import SimpleNamespace

    from dmlpy.arrays.dispatch import ArrayCall
    from dmlpy.arrays.host_memory import _run_packed
    from dmlpy.ops.element_wise_quantize_linear import ElementWiseQuantizeLinearOperatorDesc

    small_device = SimpleNamespace(cl_device=SimpleNamespace(max_mem_alloc_size=1024))
    x = np.zeros(512, np.float32)  # 2 KiB
    scale = np.full(512, 0.5, np.float32)
    out = np.empty(512, np.uint8)  # 512 bytes
    call = ArrayCall(ElementWiseQuantizeLinearOperatorDesc, (), [x, scale, None], out)
    assert _run_packed(call, small_device) is False  # type: ignore[arg-type]
